import type { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import {
  decodeDualAnchorCheckpoint,
  DualAnchorCheckpointStoreBase,
  emptyStoredDualAnchorFields,
  storedFieldsAfterReset,
  type DualAnchorCheckpoint,
  type DualAnchorFieldWrite,
  type DualAnchorResetWrite,
  type StoredDualAnchorFields,
} from '../dual-anchor/index.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';
import type { TelemetryOptions } from '../telemetry/index.js';

interface StoredRecord {
  readonly fields: StoredDualAnchorFields;
  /** The stream's one write version, set by `notOlderThan` writes and kept by every other. */
  readonly version: bigint | undefined;
}

/**
 * A dual-anchor checkpoint store in process memory that evaluates every condition. Each write judges its condition
 * and replaces the stream's entry synchronously between two awaits, so no other call can interleave: every partial
 * write, the anchor with its heartbeat, and the guarded reset are each one step. Records are kept in stored form
 * (canonical JSON, epoch milliseconds), so what a caller passes in or gets back is never shared with the store.
 */
export class InMemoryDualAnchorCheckpointStore extends DualAnchorCheckpointStoreBase {
  readonly #records = new Map<string, StoredRecord>();

  /** `options` say where its writes are recorded (doc/observability.md). */
  constructor(options: TelemetryOptions = {}) {
    super('memory', options);
  }

  /** Always true: every condition is judged in the same synchronous step as its write. */
  evaluatesWriteConditions(): boolean {
    return true;
  }

  protected async writeFields(write: DualAnchorFieldWrite): Promise<void> {
    this.#upsert(write.streamName, write.condition, (stored) => ({ ...stored, ...write.fields }));
  }

  protected async writeReset(reset: DualAnchorResetWrite): Promise<void> {
    this.#upsert(reset.streamName, reset.condition, (stored) => storedFieldsAfterReset(stored, reset));
  }

  protected async readRecord(streamName: string): Promise<DualAnchorCheckpoint | undefined> {
    const stored = this.#records.get(streamName);
    return stored === undefined ? undefined : decodeDualAnchorCheckpoint(streamName, stored.fields);
  }

  protected async removeRecord(streamName: string): Promise<void> {
    this.#records.delete(streamName);
  }

  #upsert(
    streamName: string,
    condition: CheckpointWriteCondition,
    change: (stored: StoredDualAnchorFields) => StoredDualAnchorFields,
  ): void {
    const stored = this.#records.get(streamName);
    const version = nextVersion(streamName, condition, stored);
    this.#records.set(streamName, { fields: change(stored?.fields ?? emptyStoredDualAnchorFields), version });
  }
}

/** The version after a write under `condition`, or a refusal that leaves the record as it is. */
function nextVersion(
  streamName: string,
  condition: CheckpointWriteCondition,
  stored: StoredRecord | undefined,
): bigint | undefined {
  switch (condition.kind) {
    case 'any':
      return stored?.version;
    case 'ifAbsent':
      if (stored !== undefined) {
        throw new CheckpointWriteConditionNotFulfilledError(streamName, condition, stored.version);
      }
      return undefined;
    case 'notOlderThan':
      if (stored?.version !== undefined && stored.version > condition.version) {
        throw new CheckpointWriteConditionNotFulfilledError(streamName, condition, stored.version);
      }
      return condition.version;
  }
}
