import type { Checkpoint } from './checkpoint.js';
import {
  evaluatesWriteConditions,
  evaluatesWriteConditionsFor,
  storageName,
  type CheckpointStorage,
} from './checkpoint-storage.js';
import { CheckpointWriteCondition } from './checkpoint-write-condition.js';
import { describeValue } from './describe-value.js';
import { CheckpointWriteConditionNotFulfilledError } from './errors/checkpoint-write-condition-not-fulfilled-error.js';
import { NoLeaseHeldError } from './errors/no-lease-held-error.js';
import { StartPositionAlreadyPinnedError } from './errors/start-position-already-pinned-error.js';
import { StorageCannotBeFencedError } from './errors/storage-cannot-be-fenced-error.js';
import { assertCheckpoint } from './storage-arguments.js';
import { assertSubscriptionId } from './subscription-id.js';

/** Where a writer gets the token of the lease it holds; `undefined` when it holds none. */
export type FencingTokenSource = (
  subscriptionId: string,
) => bigint | number | undefined | Promise<bigint | number | undefined>;

/** Options of {@link FencedCheckpointWriter}. */
export interface FencedCheckpointWriterOptions {
  /**
   * Asked right before every write: a token stamps the write `notOlderThan(token)`; `undefined` (this node holds no
   * lease) sends nothing and rejects with `NoLeaseHeldError`.
   */
  readonly fencingToken: FencingTokenSource;
}

/**
 * Writes checkpoints stamped with the writer's current fencing token, and nothing without one. It never caches a
 * token, never catches or retries a refusal, and refuses a storage that cannot evaluate conditions. An unfenced write
 * is `storage.save(id, checkpoint, CheckpointWriteCondition.any())`, spelled out (ADR 0004).
 */
export class FencedCheckpointWriter {
  readonly #storage: CheckpointStorage;
  readonly #fencingToken: FencingTokenSource;
  readonly #fenceableIds = new Set<string>();
  #last: { readonly token: bigint | number; readonly condition: CheckpointWriteCondition } | undefined;

  /**
   * @throws TypeError when `options.fencingToken` is not a function.
   * @throws StorageCannotBeFencedError when the storage cannot evaluate conditions.
   */
  constructor(storage: CheckpointStorage, options: FencedCheckpointWriterOptions) {
    const source: unknown = (options as Partial<FencedCheckpointWriterOptions> | undefined)?.fencingToken;
    if (typeof source !== 'function') {
      throw new TypeError(
        `FencedCheckpointWriter needs a fencingToken function, got ${describeValue(source)}: it writes nothing without a token. ` +
          'Pass { fencingToken: (id) => lease.fencingToken(id) }; for an unfenced write, call ' +
          'storage.save(id, checkpoint, CheckpointWriteCondition.any()).',
      );
    }
    this.#storage = storage;
    this.#fencingToken = source as FencingTokenSource;
    if (!evaluatesWriteConditions(storage)) {
      throw new StorageCannotBeFencedError(storageName(storage));
    }
  }

  /**
   * Saves `checkpoint` stamped `notOlderThan(token)`. When the token source answers `undefined` it sends nothing and
   * rejects with `NoLeaseHeldError`; a refusal by the storage, `CheckpointWriteConditionNotFulfilledError`, reaches
   * the caller unchanged. Both mean this node lost its lease: do not retry.
   *
   * The id and checkpoint are checked here and again by the storage, on purpose: the writer hands the id to the
   * token source and to `evaluatesWriteConditionsFor` before the storage sees it, and a storage is not required to
   * check its arguments (the upgrade recipe's shape keeps its pre-fencing handling). The second check costs two
   * `typeof` tests and two `isWellFormed` calls, a few nanoseconds (`npm run bench:in-memory`).
   */
  save(subscriptionId: string, checkpoint: Checkpoint): Promise<Checkpoint> {
    // Not async: a write adopts the storage's own promise instead of wrapping it in another one. A throw anywhere in
    // here, the storage's included, still becomes a rejection.
    try {
      assertSubscriptionId(subscriptionId);
      assertCheckpoint(checkpoint);
      this.#assertFenceable(subscriptionId);
      const token = this.#fencingToken(subscriptionId);
      return token instanceof Promise
        ? token.then((resolved) => this.#saveWith(subscriptionId, checkpoint, resolved))
        : this.#saveWith(subscriptionId, checkpoint, token);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /**
   * Pins a subscription's first position with `ifAbsent()`. When another writer pinned one first, resolves to what
   * the storage's `resolveFirstCheckpointRace` keeps, or rejects with `StartPositionAlreadyPinnedError`.
   */
  async saveStartPosition(subscriptionId: string, checkpoint: Checkpoint): Promise<Checkpoint> {
    assertSubscriptionId(subscriptionId);
    assertCheckpoint(checkpoint);
    this.#assertFenceable(subscriptionId);
    return pinStartPosition(this.#storage, subscriptionId, checkpoint);
  }

  /**
   * Writes with the condition of `token`, made once for as long as the token stays the same: a lease's token changes
   * only at a hand-over, and a frozen condition costs more to build than the rest of an in-memory write.
   * @throws NoLeaseHeldError for an `undefined` token, before anything is sent.
   */
  #saveWith(subscriptionId: string, checkpoint: Checkpoint, token: bigint | number | undefined): Promise<Checkpoint> {
    if (token === undefined) {
      throw new NoLeaseHeldError(subscriptionId);
    }
    if (this.#last?.token !== token) {
      this.#last = { token, condition: CheckpointWriteCondition.notOlderThan(token) };
    }
    return this.#storage.save(subscriptionId, checkpoint, this.#last.condition);
  }

  #assertFenceable(subscriptionId: string): void {
    if (this.#fenceableIds.has(subscriptionId)) {
      return;
    }
    if (!evaluatesWriteConditionsFor(this.#storage, subscriptionId)) {
      throw new StorageCannotBeFencedError(storageName(this.#storage), subscriptionId);
    }
    this.#fenceableIds.add(subscriptionId);
  }
}

/**
 * `ifAbsent()`, then the storage's `resolveFirstCheckpointRace` when another writer pinned a position first: what
 * {@link FencedCheckpointWriter.saveStartPosition} does once the ids are checked, and what a subscription without a
 * strategy pins with, as a start position needs no token.
 */
export async function pinStartPosition(
  storage: CheckpointStorage,
  subscriptionId: string,
  checkpoint: Checkpoint,
): Promise<Checkpoint> {
  try {
    return await storage.save(subscriptionId, checkpoint, CheckpointWriteCondition.ifAbsent());
  } catch (error) {
    if (!(error instanceof CheckpointWriteConditionNotFulfilledError)) {
      throw error;
    }
    const kept = await storage.resolveFirstCheckpointRace?.(subscriptionId, checkpoint);
    if (kept === undefined) {
      throw new StartPositionAlreadyPinnedError(subscriptionId, checkpoint);
    }
    return kept;
  }
}
