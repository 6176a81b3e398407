import type { Checkpoint } from '../checkpoint.js';
import { quoteText } from '../describe-value.js';

/** A start position could not be pinned with `ifAbsent()` because another writer stored one first and the storage could not resolve the race. */
export class StartPositionAlreadyPinnedError extends Error {
  override readonly name = 'StartPositionAlreadyPinnedError';

  constructor(
    readonly subscriptionId: string,
    readonly candidate: Checkpoint,
  ) {
    super(
      `Start position ${quoteText(candidate)} for subscription ${quoteText(subscriptionId)} was not pinned: ` +
        'ifAbsent() was refused because a checkpoint is already stored. Read the stored checkpoint and resume from it, ' +
        'or give the storage a resolveFirstCheckpointRace() that keeps the earlier position.',
    );
  }
}
