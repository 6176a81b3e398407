import type { Checkpoint } from '../checkpoint.js';
import type { CheckpointStorage } from '../checkpoint-storage.js';
import type { RunWriter } from './delivery-run.js';
import { FencingTokenReusedError } from './fencing-token-reused-error.js';

/** What a new holder fences with and starts from. */
export interface FenceOnAcquireInput {
  readonly storage: CheckpointStorage;
  /** Stamps its writes with `token`. */
  readonly writer: RunWriter;
  readonly subscriptionId: string;
  /** The token of the grant; `undefined` (no strategy) fences nothing. */
  readonly token: bigint | undefined;
  /** The token of this node's grant before this one: a lease handed back with it may find its own version stored. */
  readonly lastToken: bigint | undefined;
  /** `false` when the subscription was built with `fenceOnAcquire: false`: then only the first checkpoint fences. */
  readonly fence: boolean;
  /** Pinned with `ifAbsent()` when nothing is stored. */
  readonly startPosition: Checkpoint | undefined;
}

/**
 * The fence on acquire, then the read of where delivery starts. With the storage's `advanceWriteVersion`, one atomic
 * step raises the stored version to `token` before the read: from then on every write stamped with an older token is
 * refused, and the read sees the last checkpoint an older holder could still land, so nothing is written back over
 * it. A storage without the method gets the fallback: read, then write what was read back stamped with the token,
 * with the one-round-trip gap ADR 0402 describes. Resolves to the start position (`undefined`: from the beginning).
 * Rejects with `CheckpointWriteConditionNotFulfilledError` when a newer token has already fenced, and with its
 * subclass `FencingTokenReusedError` when a token new to this node is already the stored version (ADR 0404).
 */
export async function fenceOnAcquire(input: FenceOnAcquireInput): Promise<Checkpoint | undefined> {
  const { storage, writer, subscriptionId, token, startPosition } = input;
  const fence = input.fence && token !== undefined;
  if (fence && token !== input.lastToken && (await storage.writeVersion(subscriptionId)) === token) {
    // A healthy counter mints every grant above every version ever stored; only a lost one mints a token twice.
    throw new FencingTokenReusedError(subscriptionId, token);
  }
  const advance = fence && storage.advanceWriteVersion !== undefined;
  if (advance) {
    await storage.advanceWriteVersion?.(subscriptionId, token);
  }
  let from = await storage.read(subscriptionId);
  if (from === undefined && startPosition !== undefined) {
    from = await writer.saveStartPosition(subscriptionId, startPosition);
  }
  if (fence && !advance && from !== undefined) {
    from = await writer.save(subscriptionId, from);
  }
  return from;
}
