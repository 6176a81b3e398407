import type { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import type { DualAnchorCheckpoint, DualAnchorToken } from './dual-anchor-checkpoint.js';
import type { DualAnchorCheckpointStore } from './dual-anchor-checkpoint-store.js';
import { DualAnchorWritePlan, type DualAnchorFieldWrite, type DualAnchorResetWrite } from './dual-anchor-write-plan.js';
import { assertStreamName } from '../subscription-id.js';

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

  saveSeen(
    streamName: string,
    token: DualAnchorToken,
    timestamp: Date,
    heartbeatTimestamp?: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void> {
    return this.#anchorWrite('saveSeen', streamName, token, timestamp, heartbeatTimestamp, condition);
  }

  saveProcessed(
    streamName: string,
    token: DualAnchorToken,
    timestamp: Date,
    heartbeatTimestamp?: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void> {
    return this.#anchorWrite('saveProcessed', streamName, token, timestamp, heartbeatTimestamp, condition);
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
   * `saveSeen` or `saveProcessed`, the writes a store makes most often: as an async method would behave (a `TypeError`
   * from validation, or a throw from the step, is a rejection; the result is `undefined`), with one `then` on the
   * step's promise instead of an async function's own promise and await, which cost a write more than its validation.
   */
  #anchorWrite(
    operation: 'saveSeen' | 'saveProcessed',
    streamName: string,
    token: DualAnchorToken,
    timestamp: Date,
    heartbeatTimestamp: Date | undefined,
    condition: CheckpointWriteCondition | undefined,
  ): Promise<void> {
    try {
      const plan =
        operation === 'saveSeen'
          ? DualAnchorWritePlan.saveSeen(streamName, token, timestamp, heartbeatTimestamp, condition)
          : DualAnchorWritePlan.saveProcessed(streamName, token, timestamp, heartbeatTimestamp, condition);
      return Promise.resolve(this.writeFields(plan)).then(toUndefined);
    } catch (error) {
      return rejectedWith(error);
    }
  }

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

/** A promise rejected with `error` exactly as thrown, as an async method's would be. */
async function rejectedWith(error: unknown): Promise<never> {
  throw error;
}

function toUndefined(): undefined {
  return undefined;
}
