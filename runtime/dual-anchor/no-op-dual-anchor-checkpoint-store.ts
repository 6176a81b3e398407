import { UnsupportedWriteConditionError } from '../errors/unsupported-write-condition-error.js';
import type { DualAnchorCheckpoint } from './dual-anchor-checkpoint.js';
import type { DualAnchorCheckpointStore } from './dual-anchor-checkpoint-store.js';
import { DualAnchorCheckpointStoreBase } from './dual-anchor-checkpoint-store-base.js';
import type { DualAnchorFieldWrite, DualAnchorResetWrite } from './dual-anchor-write-plan.js';

/**
 * Discards every write and finds nothing. It still rejects bad input with a `TypeError`, and refuses every condition
 * but `any()` with `UnsupportedWriteConditionError` (`evaluatesWriteConditions()` is false): a fenced writer must
 * never believe a store it cannot fence took its write.
 */
class NoOpDualAnchorCheckpointStore extends DualAnchorCheckpointStoreBase {
  /** False: nothing is stored, so no condition can be judged. */
  evaluatesWriteConditions(): boolean {
    return false;
  }

  protected async writeFields(write: DualAnchorFieldWrite): Promise<void> {
    discard(write);
  }

  protected async writeReset(reset: DualAnchorResetWrite): Promise<void> {
    discard(reset);
  }

  protected async readRecord(): Promise<DualAnchorCheckpoint | undefined> {
    return undefined;
  }

  protected async removeRecord(): Promise<void> {
    // Nothing is ever stored, so there is nothing to remove.
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
