import type { CheckpointStorage, CheckpointWriteCondition } from '../../../runtime/index.js';
import type { HistoryRecorder } from './history-recorder.js';

/**
 * A storage that records every `read`, `writeVersion`, `save` and `delete` it passes on, as one process of a
 * history. Callers of one instance must not overlap (one process has one call in flight); give each concurrent
 * caller its own instance and process name.
 */
export class RecordingCheckpointStorage implements CheckpointStorage {
  constructor(
    readonly storage: CheckpointStorage,
    readonly recorder: HistoryRecorder,
    readonly process: string,
  ) {}

  async read(subscriptionId: string): Promise<string | undefined> {
    return this.recorder.record(this.process, { kind: 'read', subscriptionId }, () =>
      this.storage.read(subscriptionId),
    );
  }

  async writeVersion(subscriptionId: string): Promise<bigint | undefined> {
    return this.recorder.record(this.process, { kind: 'writeVersion', subscriptionId }, () =>
      this.storage.writeVersion(subscriptionId),
    );
  }

  async save(subscriptionId: string, checkpoint: string, condition: CheckpointWriteCondition): Promise<string> {
    return this.recorder.record(
      this.process,
      { kind: 'save', subscriptionId, checkpoint, condition: plainCondition(condition) },
      () => this.storage.save(subscriptionId, checkpoint, condition),
    );
  }

  async delete(subscriptionId: string): Promise<void> {
    return this.recorder.record(this.process, { kind: 'delete', subscriptionId }, () =>
      this.storage.delete(subscriptionId),
    );
  }

  evaluatesWriteConditions(): boolean {
    return this.storage.evaluatesWriteConditions?.() ?? false;
  }

  evaluatesWriteConditionsFor(subscriptionId: string): boolean {
    return this.storage.evaluatesWriteConditionsFor?.(subscriptionId) ?? this.evaluatesWriteConditions();
  }
}

/**
 * The condition as plain data: the factories' objects carry a `toString` function, which structured clone (worker
 * IPC) refuses to copy.
 */
function plainCondition(condition: CheckpointWriteCondition): CheckpointWriteCondition {
  return condition.kind === 'notOlderThan'
    ? { kind: 'notOlderThan', version: condition.version }
    : { kind: condition.kind };
}
