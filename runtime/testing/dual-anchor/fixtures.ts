import type { CheckpointWriteCondition } from '../../checkpoint-write-condition.js';
import type { DualAnchorCheckpoint, DualAnchorCheckpointStore, DualAnchorToken } from '../../dual-anchor/index.js';

// What the dual-anchor kit's cases share: the tokens and timestamps they write, and every write of the contract.

/** A write's trailing condition; left out means `any()`. */
export type Condition = CheckpointWriteCondition | undefined;

/** One write of the contract, with the fields it sets on a stream; the kit runs each through the same cases. */
export interface PartialWrite {
  readonly label: string;
  readonly write: (store: DualAnchorCheckpointStore, streamName: string, condition?: Condition) => Promise<void>;
  readonly sets: Partial<DualAnchorCheckpoint>;
}

/** The values the cases write; each differs from every field of {@link fullRecord}. */
export const seenToken: DualAnchorToken = { position: 'seen-7', shard: { id: 3, replicas: ['a', 'b'] } };
export const processedToken: DualAnchorToken = { position: 'processed-5' };
export const freshToken: DualAnchorToken = { position: 'fresh-1', epoch: 2 };
export const deadToken: DualAnchorToken = { position: 'expired-2', shard: { a: 1, b: [true, null] } };
export const seenAt = new Date('2024-05-01T10:00:00.123Z');
export const processedAt = new Date('2024-05-01T09:59:58.007Z');
export const heartbeatAt = new Date('2024-05-01T10:00:01.999Z');
export const resetAt = new Date('2024-05-02T00:00:00.001Z');

/** Every partial operation, with and without a heartbeat, and both kinds of reset. */
export const partialWrites: readonly PartialWrite[] = [
  {
    label: 'saveSeen',
    write: (store, name, condition) => store.saveSeen(name, seenToken, seenAt, undefined, condition),
    sets: { lastSeenToken: seenToken, lastSeenTimestamp: seenAt },
  },
  {
    label: 'saveSeen with a heartbeat',
    write: (store, name, condition) => store.saveSeen(name, seenToken, seenAt, heartbeatAt, condition),
    sets: { lastSeenToken: seenToken, lastSeenTimestamp: seenAt, lastHeartbeatTimestamp: heartbeatAt },
  },
  {
    label: 'saveProcessed',
    write: (store, name, condition) => store.saveProcessed(name, processedToken, processedAt, undefined, condition),
    sets: { lastProcessedToken: processedToken, lastProcessedTimestamp: processedAt },
  },
  {
    label: 'saveProcessed with a heartbeat',
    write: (store, name, condition) => store.saveProcessed(name, processedToken, processedAt, heartbeatAt, condition),
    sets: {
      lastProcessedToken: processedToken,
      lastProcessedTimestamp: processedAt,
      lastHeartbeatTimestamp: heartbeatAt,
    },
  },
  {
    label: 'saveHeartbeat',
    write: (store, name, condition) => store.saveHeartbeat(name, heartbeatAt, condition),
    sets: { lastHeartbeatTimestamp: heartbeatAt },
  },
  {
    label: 'resetAfterHistoryLost with a fresh token',
    write: (store, name, condition) => store.resetAfterHistoryLost(name, freshToken, deadToken, resetAt, condition),
    sets: { lastSeenToken: freshToken, lastSeenTimestamp: resetAt, lastHeartbeatTimestamp: resetAt },
  },
  {
    label: 'resetAfterHistoryLost without a fresh token',
    write: (store, name, condition) => store.resetAfterHistoryLost(name, null, deadToken, resetAt, condition),
    sets: { lastSeenToken: null, lastSeenTimestamp: null, lastHeartbeatTimestamp: null },
  },
];

/** `save` of a whole record, for the cases every write goes through. */
export const wholeRecordWrite: PartialWrite = {
  label: 'save',
  write: (store, name, condition) => store.save(fullRecord(name), condition),
  sets: {},
};

/** Registers the suite of a group of cases, as `describe` does. */
export type SuiteRegistrar = (name: string, body: () => void) => void;

/** Registers one case, run on a fresh store from the kit's factory and torn down after. */
export type CaseRegistrar = (
  title: string,
  body: (store: DualAnchorCheckpointStore) => Promise<void>,
  timeoutMs?: number,
) => void;

/** A record with every field set, metadata and instance id included. */
export function fullRecord(streamName: string): DualAnchorCheckpoint {
  return {
    streamName,
    instanceId: 'instance-a',
    lastSeenToken: { position: 'seen-1', shard: { id: 3, replicas: ['a'] } },
    lastSeenTimestamp: new Date('2024-04-30T12:00:00.500Z'),
    lastProcessedToken: { position: 'processed-1' },
    lastProcessedTimestamp: new Date('2024-04-30T11:59:59.250Z'),
    lastHeartbeatTimestamp: new Date('2024-04-30T12:00:01.750Z'),
    metadata: { owner: 'kit', attempts: 3, tags: ['a', 'b'], nested: { ok: true, none: null } },
  };
}

/** What a store holds for a stream no write has given a value yet. */
export function emptyRecord(streamName: string): DualAnchorCheckpoint {
  return {
    streamName,
    instanceId: null,
    lastSeenToken: null,
    lastSeenTimestamp: null,
    lastProcessedToken: null,
    lastProcessedTimestamp: null,
    lastHeartbeatTimestamp: null,
    metadata: {},
  };
}
