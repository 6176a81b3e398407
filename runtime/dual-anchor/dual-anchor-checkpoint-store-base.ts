import type { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import type { DualAnchorCheckpoint, DualAnchorToken } from './dual-anchor-checkpoint.js';
import type { DualAnchorCheckpointStore } from './dual-anchor-checkpoint-store.js';
import { DualAnchorWritePlan, type DualAnchorFieldWrite, type DualAnchorResetWrite } from './dual-anchor-write-plan.js';
import { assertStreamName } from './well-formed-id.js';

/**
 * The public operations of a dual-anchor store, each validated into a {@link DualAnchorWritePlan} before anything is
 * sent, over four backend steps a subclass writes: one atomic upsert of a plan's fields, one atomic guarded reset, a
 * read and a delete. Every built-in store extends it; a store of your own can too, and then only has to make each step
 * atomic. A `TypeError` from validation becomes a rejection, as for every other failure.
 */
export abstract class DualAnchorCheckpointStoreBase implements DualAnchorCheckpointStore {
  async save(checkpoint: DualAnchorCheckpoint, condition?: CheckpointWriteCondition): Promise<void> {
    await this.writeFields(DualAnchorWritePlan.save(checkpoint, condition));
  }

  async findByStreamName(streamName: string): Promise<DualAnchorCheckpoint | undefined> {
    assertStreamName(streamName);
    return this.readRecord(streamName);
  }

  async delete(streamName: string): Promise<void> {
    assertStreamName(streamName);
    await this.removeRecord(streamName);
  }

  async saveSeen(
    streamName: string,
    token: DualAnchorToken,
    timestamp: Date,
    heartbeatTimestamp?: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void> {
    await this.writeFields(DualAnchorWritePlan.saveSeen(streamName, token, timestamp, heartbeatTimestamp, condition));
  }

  async saveProcessed(
    streamName: string,
    token: DualAnchorToken,
    timestamp: Date,
    heartbeatTimestamp?: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void> {
    await this.writeFields(
      DualAnchorWritePlan.saveProcessed(streamName, token, timestamp, heartbeatTimestamp, condition),
    );
  }

  async saveHeartbeat(
    streamName: string,
    heartbeatTimestamp: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void> {
    await this.writeFields(DualAnchorWritePlan.saveHeartbeat(streamName, heartbeatTimestamp, condition));
  }

  async resetAfterHistoryLost(
    streamName: string,
    freshSeenToken: DualAnchorToken | null,
    expectedDeadProcessed: DualAnchorToken | null,
    timestamp: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void> {
    await this.writeReset(
      DualAnchorWritePlan.resetAfterHistoryLost(
        streamName,
        freshSeenToken,
        expectedDeadProcessed,
        timestamp,
        condition,
      ),
    );
  }

  abstract evaluatesWriteConditions(): boolean;

  /**
   * One atomic upsert: when `write.condition` holds, set exactly `write.fields` (creating the record if needed, and
   * storing a `notOlderThan` version), else reject with `CheckpointWriteConditionNotFulfilledError` and change nothing.
   */
  protected abstract writeFields(write: DualAnchorFieldWrite): Promise<unknown>;

  /**
   * One atomic upsert with the guard inside: when `reset.condition` holds, set `reset.fields` and clear the processed
   * pair only while the stored processed token's canonical text equals `reset.expectedDeadProcessed`.
   */
  protected abstract writeReset(reset: DualAnchorResetWrite): Promise<unknown>;

  /** The record of a validated stream name, as fresh values; `undefined` when none is stored. */
  protected abstract readRecord(streamName: string): Promise<DualAnchorCheckpoint | undefined>;

  /** Removes the record of a validated stream name and its write version; a no-op when none is stored. */
  protected abstract removeRecord(streamName: string): Promise<unknown>;
}
