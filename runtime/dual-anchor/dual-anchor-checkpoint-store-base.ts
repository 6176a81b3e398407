import type { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import type { DualAnchorCheckpoint, DualAnchorToken } from './dual-anchor-checkpoint.js';
import type { DualAnchorCheckpointStore } from './dual-anchor-checkpoint-store.js';
import { DualAnchorWritePlan, type DualAnchorFieldWrite, type DualAnchorResetWrite } from './dual-anchor-write-plan.js';
import { rejectedWith } from '../storage-arguments.js';
import { assertStreamName } from '../subscription-id.js';
import {
  CheckpointWriteTelemetry,
  type DualAnchorName,
  type StorageBackend,
  type TelemetryOptions,
} from '../telemetry/index.js';

/**
 * The public operations of a dual-anchor store, each validated into a {@link DualAnchorWritePlan} before anything is
 * sent, over four backend steps a subclass writes: one atomic upsert of a plan's fields, one atomic guarded reset, a
 * read and a delete. Every built-in store extends it; a store of your own can too, and then only has to make each step
 * atomic. A `TypeError` from validation becomes a rejection, as for every other failure.
 */
export abstract class DualAnchorCheckpointStoreBase implements DualAnchorCheckpointStore {
  readonly #telemetry: CheckpointWriteTelemetry | undefined;

  /**
   * A built-in store passes its `backend` and its options, and has its validated writes recorded (doc/observability.md);
   * a store of your own passes nothing and records nothing.
   */
  constructor(backend?: StorageBackend, options: TelemetryOptions = {}) {
    this.#telemetry = backend === undefined ? undefined : CheckpointWriteTelemetry.resolve(backend, options);
  }

  async save(checkpoint: DualAnchorCheckpoint, condition?: CheckpointWriteCondition): Promise<void> {
    const plan = DualAnchorWritePlan.save(checkpoint, condition);
    await this.#recorded(plan, undefined, () => this.writeFields(plan));
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
    const plan = DualAnchorWritePlan.saveHeartbeat(streamName, heartbeatTimestamp, condition);
    await this.#recorded(plan, 'heartbeat', () => this.writeFields(plan));
  }

  async resetAfterHistoryLost(
    streamName: string,
    freshSeenToken: DualAnchorToken | null,
    expectedDeadProcessed: DualAnchorToken | null,
    timestamp: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void> {
    const reset = DualAnchorWritePlan.resetAfterHistoryLost(
      streamName,
      freshSeenToken,
      expectedDeadProcessed,
      timestamp,
      condition,
    );
    await this.#recorded(reset, 'reset', () => this.writeReset(reset));
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
      const written =
        this.#telemetry === undefined
          ? this.writeFields(plan)
          : this.#telemetry.record(streamName, condition, operation === 'saveSeen' ? 'seen' : 'processed', () =>
              Promise.resolve(this.writeFields(plan)),
            );
      return Promise.resolve(written).then(toUndefined);
    } catch (error) {
      return rejectedWith(error);
    }
  }

  /** Runs `step`, the backend write of `write`, recorded as an `anchor` write when this store records. */
  #recorded(
    write: DualAnchorFieldWrite | DualAnchorResetWrite,
    anchor: DualAnchorName | undefined,
    step: () => Promise<unknown>,
  ): Promise<unknown> {
    return this.#telemetry === undefined
      ? step()
      : this.#telemetry.record(write.streamName, write.condition, anchor, step);
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

function toUndefined(): undefined {
  return undefined;
}
