import { describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  UnsupportedWriteConditionError,
  type CheckpointWriteCondition as Condition,
} from '../../../runtime/index.js';
import {
  InMemoryDualAnchorCheckpointStore,
  withReadModifyWriteDefaults,
  type DualAnchorCheckpoint,
  type MinimalDualAnchorCheckpointStore,
} from '../../../runtime/dual-anchor-entry.js';

const at = new Date('2024-05-01T10:00:00.123Z');

/** Records every call the wrapper makes on top of an in-memory store that evaluates conditions, or claims not to. */
function recordingMinimal(evaluates: boolean): {
  minimal: MinimalDualAnchorCheckpointStore;
  calls: string[];
  saved: [DualAnchorCheckpoint, Condition | undefined][];
} {
  const inner = new InMemoryDualAnchorCheckpointStore();
  const calls: string[] = [];
  const saved: [DualAnchorCheckpoint, Condition | undefined][] = [];
  const minimal: MinimalDualAnchorCheckpointStore = {
    save: async (checkpoint, condition) => {
      calls.push('save');
      saved.push([checkpoint, condition]);
      await inner.save(checkpoint, condition);
    },
    findByStreamName: async (streamName) => {
      calls.push('findByStreamName');
      return inner.findByStreamName(streamName);
    },
    delete: async (streamName) => {
      calls.push('delete');
      await inner.delete(streamName);
    },
    ...(evaluates ? { evaluatesWriteConditions: () => true } : {}),
  };
  return { minimal, calls, saved };
}

describe('withReadModifyWriteDefaults', () => {
  it('reads the record and saves it whole, anchor and heartbeat in one save', async () => {
    const { minimal, calls, saved } = recordingMinimal(false);
    const store = withReadModifyWriteDefaults(minimal);
    await store.saveProcessed('orders', { position: 1 }, at, at);
    expect(calls).toEqual(['findByStreamName', 'save']);
    expect(saved[0]?.[0]).toMatchObject({ lastProcessedToken: { position: 1 }, lastHeartbeatTimestamp: at });
  });

  it('answers evaluatesWriteConditions() as the minimal store does, false when it does not say', () => {
    expect(withReadModifyWriteDefaults(recordingMinimal(false).minimal).evaluatesWriteConditions()).toBe(false);
    expect(withReadModifyWriteDefaults(recordingMinimal(true).minimal).evaluatesWriteConditions()).toBe(true);
  });

  it('refuses a condition the minimal store cannot evaluate before reading anything', async () => {
    const { minimal, calls } = recordingMinimal(false);
    const store = withReadModifyWriteDefaults(minimal);
    await expect(store.saveSeen('orders', 1, at, undefined, CheckpointWriteCondition.notOlderThan(2))).rejects.toThrow(
      UnsupportedWriteConditionError,
    );
    await expect(store.save(emptyRecord('orders'), CheckpointWriteCondition.ifAbsent())).rejects.toThrow(
      UnsupportedWriteConditionError,
    );
    expect(calls).toEqual([]);
  });

  it("hands the minimal store's save a frozen copy of the condition, and any() when none is given", async () => {
    const { minimal, saved } = recordingMinimal(true);
    const store = withReadModifyWriteDefaults(minimal);
    const condition = { kind: 'notOlderThan', version: 4n } as const;
    await store.saveHeartbeat('orders', at, condition);
    await store.saveHeartbeat('orders', at);
    expect(saved.map(([, passed]) => String(passed))).toEqual(['notOlderThan(4)', 'any()']);
    expect(saved[0]?.[1]).not.toBe(condition);
    expect(Object.isFrozen(saved[0]?.[1])).toBe(true);
  });

  it('checks arguments before calling the minimal store', async () => {
    const { minimal, calls } = recordingMinimal(true);
    const store = withReadModifyWriteDefaults(minimal);
    await expect(store.findByStreamName('')).rejects.toThrow(TypeError);
    await expect(store.delete('')).rejects.toThrow(TypeError);
    await expect(store.saveHeartbeat('orders', new Date(Number.NaN))).rejects.toThrow(TypeError);
    expect(calls).toEqual([]);
  });
});

function emptyRecord(streamName: string): DualAnchorCheckpoint {
  return {
    streamName,
    lastSeenToken: null,
    lastSeenTimestamp: null,
    lastProcessedToken: null,
    lastProcessedTimestamp: null,
    lastHeartbeatTimestamp: null,
    metadata: {},
  };
}
