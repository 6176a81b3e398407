import type { Checkpoint } from './checkpoint.js';
import {
  evaluatesWriteConditions,
  evaluatesWriteConditionsFor,
  storageName,
  type CheckpointStorage,
} from './checkpoint-storage.js';
import { CheckpointWriteCondition } from './checkpoint-write-condition.js';
import { CheckpointWriteConditionNotFulfilledError } from './errors/checkpoint-write-condition-not-fulfilled-error.js';
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
  /** Asked right before every write; a token stamps the write `notOlderThan(token)`, `undefined` writes `any()`. */
  readonly fencingToken?: FencingTokenSource;
}

/**
 * Writes checkpoints stamped with the writer's current fencing token. It never caches a token, never catches or
 * retries a refusal, and refuses to run fenced over a storage that cannot evaluate conditions.
 */
export class FencedCheckpointWriter {
  readonly #storage: CheckpointStorage;
  readonly #fencingToken: FencingTokenSource | undefined;
  readonly #fenceableIds = new Set<string>();
  #lastToken: bigint | number | undefined;
  #lastCondition: CheckpointWriteCondition = CheckpointWriteCondition.any();

  /** @throws StorageCannotBeFencedError when `fencingToken` is given and the storage cannot evaluate conditions. */
  constructor(storage: CheckpointStorage, options: FencedCheckpointWriterOptions = {}) {
    this.#storage = storage;
    this.#fencingToken = options.fencingToken;
    if (this.#fencingToken !== undefined && !evaluatesWriteConditions(storage)) {
      throw new StorageCannotBeFencedError(storageName(storage));
    }
  }

  /**
   * Saves `checkpoint`, stamped `notOlderThan(token)` when the token source has a token, `any()` otherwise.
   * A `CheckpointWriteConditionNotFulfilledError` reaches the caller unchanged: this node lost its lease.
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
      const source = this.#fencingToken;
      if (source === undefined) {
        return this.#storage.save(subscriptionId, checkpoint, CheckpointWriteCondition.any());
      }
      this.#assertFenceable(subscriptionId);
      const token = source(subscriptionId);
      return token instanceof Promise
        ? token.then((resolved) => this.#storage.save(subscriptionId, checkpoint, this.#conditionOf(resolved)))
        : this.#storage.save(subscriptionId, checkpoint, this.#conditionOf(token));
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
    try {
      return await this.#storage.save(subscriptionId, checkpoint, CheckpointWriteCondition.ifAbsent());
    } catch (error) {
      if (!(error instanceof CheckpointWriteConditionNotFulfilledError)) {
        throw error;
      }
      const kept = await this.#storage.resolveFirstCheckpointRace?.(subscriptionId, checkpoint);
      if (kept === undefined) {
        throw new StartPositionAlreadyPinnedError(subscriptionId, checkpoint);
      }
      return kept;
    }
  }

  /**
   * The condition for `token`, made once for as long as the token stays the same: a lease's token changes only at a
   * hand-over, and a frozen condition costs more to build than the rest of an in-memory write.
   */
  #conditionOf(token: bigint | number | undefined): CheckpointWriteCondition {
    if (token === undefined) {
      return CheckpointWriteCondition.any();
    }
    if (token !== this.#lastToken) {
      this.#lastCondition = CheckpointWriteCondition.notOlderThan(token);
      this.#lastToken = token;
    }
    return this.#lastCondition;
  }

  #assertFenceable(subscriptionId: string): void {
    if (this.#fencingToken === undefined || this.#fenceableIds.has(subscriptionId)) {
      return;
    }
    if (!evaluatesWriteConditionsFor(this.#storage, subscriptionId)) {
      throw new StorageCannotBeFencedError(storageName(this.#storage), subscriptionId);
    }
    this.#fenceableIds.add(subscriptionId);
  }
}
