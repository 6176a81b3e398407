import type { Checkpoint } from './checkpoint.js';
import type { CheckpointWriteCondition } from './checkpoint-write-condition.js';

/**
 * Where a subscription's checkpoint lives. Every write is the three-argument `save`; a storage evaluates the
 * condition in the same atomic step as the write, or refuses it with `UnsupportedWriteConditionError`.
 */
export interface CheckpointStorage {
  /** The stored checkpoint, or `undefined` when none is stored. */
  read(subscriptionId: string): Promise<Checkpoint | undefined>;

  /**
   * Stores `checkpoint` when `condition` holds and resolves to the checkpoint stored. Rejects with
   * `CheckpointWriteConditionNotFulfilledError` when it does not, leaving checkpoint and version exactly as they were.
   */
  save(subscriptionId: string, checkpoint: Checkpoint, condition: CheckpointWriteCondition): Promise<Checkpoint>;

  /** The version conditions are judged against, or `undefined` when none is stored. */
  writeVersion(subscriptionId: string): Promise<bigint | undefined>;

  /** Removes checkpoint and stored version together; a no-op when nothing is stored. */
  delete(subscriptionId: string): Promise<void>;

  /** Whether this storage evaluates `notOlderThan` and `ifAbsent`; `false` when absent. */
  evaluatesWriteConditions?(): boolean;

  /** Whether this storage evaluates conditions for this id; falls back to `evaluatesWriteConditions()` when absent. */
  evaluatesWriteConditionsFor?(subscriptionId: string): boolean;

  /**
   * Throws `TypeError` for an id this storage could never store (PostgreSQL text cannot hold NUL), synchronously and
   * before anything is sent, beyond the rules every storage shares (`runtime/subscription-id.ts`). `DurableSubscription`
   * calls it in `subscribe`, so such an id is refused at once rather than failing every run in the background.
   */
  assertSubscriptionId?(subscriptionId: string): void;

  /**
   * Called after an `ifAbsent()` start-position write was refused: atomically keep the earlier of the stored
   * checkpoint and `candidate`, and resolve to whichever is stored; `undefined` when the race cannot be resolved.
   */
  resolveFirstCheckpointRace?(subscriptionId: string, candidate: Checkpoint): Promise<Checkpoint | undefined>;

  /**
   * Atomically raises the stored write version to `version` without reading or changing the checkpoint: the fence on
   * acquire in one step. Accepted when no version is stored or the stored one is ≤ `version`; otherwise rejects with
   * `CheckpointWriteConditionNotFulfilledError(subscriptionId, notOlderThan(version), storedVersion)` and changes nothing.
   * With no checkpoint stored it still records the version: `read` then answers `undefined`, `ifAbsent()` is still
   * accepted (it tests the checkpoint only) and keeps the version, `notOlderThan` is judged against it, `delete` removes it.
   * @throws TypeError (as a rejection, before anything is touched) for a non-string id or a version that is not a non-negative bigint.
   */
  advanceWriteVersion?(subscriptionId: string, version: bigint): Promise<void>;
}

/** Whether `storage` evaluates write conditions at all; `false` for a storage that does not say. */
export function evaluatesWriteConditions(storage: CheckpointStorage): boolean {
  return storage.evaluatesWriteConditions?.() ?? false;
}

/** Whether `storage` evaluates write conditions for `subscriptionId`, falling back to {@link evaluatesWriteConditions}. */
export function evaluatesWriteConditionsFor(storage: CheckpointStorage, subscriptionId: string): boolean {
  return storage.evaluatesWriteConditionsFor?.(subscriptionId) ?? evaluatesWriteConditions(storage);
}

/** The storage's class name, for messages; a generic phrase for an anonymous storage object. */
export function storageName(storage: CheckpointStorage): string {
  // An object made with Object.create(null) has no constructor at all.
  const { constructor } = storage as { readonly constructor?: { readonly name?: unknown } };
  const name = constructor?.name;
  return typeof name === 'string' && name !== '' && name !== 'Object' ? name : 'This checkpoint storage';
}
