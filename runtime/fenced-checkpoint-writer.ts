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
   */
  async save(subscriptionId: string, checkpoint: Checkpoint): Promise<Checkpoint> {
    assertSubscriptionId(subscriptionId);
    assertCheckpoint(checkpoint);
    return this.#storage.save(subscriptionId, checkpoint, await this.#conditionFor(subscriptionId));
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

  async #conditionFor(subscriptionId: string): Promise<CheckpointWriteCondition> {
    if (this.#fencingToken === undefined) {
      return CheckpointWriteCondition.any();
    }
    this.#assertFenceable(subscriptionId);
    const token = await this.#fencingToken(subscriptionId);
    return token === undefined ? CheckpointWriteCondition.any() : CheckpointWriteCondition.notOlderThan(token);
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
