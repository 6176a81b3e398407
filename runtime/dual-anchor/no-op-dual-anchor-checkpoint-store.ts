import type { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import { UnsupportedWriteConditionError } from '../errors/unsupported-write-condition-error.js';
import type { DualAnchorCheckpoint, DualAnchorToken } from './dual-anchor-checkpoint.js';
import type { DualAnchorCheckpointStore } from './dual-anchor-checkpoint-store.js';
import { DualAnchorWritePlan, type DualAnchorFieldWrite, type DualAnchorResetWrite } from './dual-anchor-write-plan.js';
import { assertStreamName } from './well-formed-id.js';

/**
 * Discards every write and finds nothing. It still rejects bad input with a `TypeError`, and refuses every condition
 * but `any()` with `UnsupportedWriteConditionError` (`evaluatesWriteConditions()` is false): a fenced writer must
 * never believe a store it cannot fence took its write.
 */
class NoOpDualAnchorCheckpointStore implements DualAnchorCheckpointStore {
  async save(checkpoint: DualAnchorCheckpoint, condition?: CheckpointWriteCondition): Promise<void> {
    discard(DualAnchorWritePlan.save(checkpoint, condition));
  }

  async findByStreamName(streamName: string): Promise<DualAnchorCheckpoint | undefined> {
    assertStreamName(streamName);
    return undefined;
  }

  async delete(streamName: string): Promise<void> {
    assertStreamName(streamName);
  }

  async saveSeen(
    streamName: string,
    token: DualAnchorToken,
    timestamp: Date,
    heartbeatTimestamp?: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void> {
    discard(DualAnchorWritePlan.saveSeen(streamName, token, timestamp, heartbeatTimestamp, condition));
  }

  async saveProcessed(
    streamName: string,
    token: DualAnchorToken,
    timestamp: Date,
    heartbeatTimestamp?: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void> {
    discard(DualAnchorWritePlan.saveProcessed(streamName, token, timestamp, heartbeatTimestamp, condition));
  }

  async saveHeartbeat(
    streamName: string,
    heartbeatTimestamp: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void> {
    discard(DualAnchorWritePlan.saveHeartbeat(streamName, heartbeatTimestamp, condition));
  }

  async resetAfterHistoryLost(
    streamName: string,
    freshSeenToken: DualAnchorToken | null,
    expectedDeadProcessed: DualAnchorToken | null,
    timestamp: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void> {
    discard(
      DualAnchorWritePlan.resetAfterHistoryLost(
        streamName,
        freshSeenToken,
        expectedDeadProcessed,
        timestamp,
        condition,
      ),
    );
  }

  /** False: nothing is stored, so no condition can be judged. */
  evaluatesWriteConditions(): boolean {
    return false;
  }
}

function discard(write: DualAnchorFieldWrite | DualAnchorResetWrite): void {
  if (write.condition.kind !== 'any') {
    throw new UnsupportedWriteConditionError(write.condition);
  }
}

const noOpStore: DualAnchorCheckpointStore = Object.freeze(new NoOpDualAnchorCheckpointStore());

/**
 * The shared store that persists nothing: writes resolve and are discarded, `findByStreamName` resolves `undefined`.
 * For tests that need no resume and for short-lived processes; never for production, where every restart would start
 * the stream over from wherever the source begins. Bad input is still a `TypeError`; conditions other than `any()` are
 * refused with `UnsupportedWriteConditionError`.
 */
export function noOpDualAnchorCheckpointStore(): DualAnchorCheckpointStore {
  return noOpStore;
}
