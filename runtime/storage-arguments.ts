import type { Checkpoint } from './checkpoint.js';
import { isCheckpointWriteCondition, type CheckpointWriteCondition } from './checkpoint-write-condition.js';
import { describeValue } from './describe-value.js';

/**
 * Throws `TypeError` unless `subscriptionId` is a string. Storages call this before touching anything, so bad
 * input from untyped callers never writes.
 */
export function assertSubscriptionId(subscriptionId: unknown): asserts subscriptionId is string {
  if (typeof subscriptionId !== 'string') {
    throw new TypeError(`subscriptionId must be a string, got ${describeValue(subscriptionId)}.`);
  }
}

/** Throws `TypeError` unless `checkpoint` is a string. */
export function assertCheckpoint(checkpoint: unknown): asserts checkpoint is Checkpoint {
  if (typeof checkpoint !== 'string') {
    throw new TypeError(`checkpoint must be a string, got ${describeValue(checkpoint)}.`);
  }
}

/** Throws `TypeError` unless `condition` is `any()`, `notOlderThan(v)` with a non-negative bigint, or `ifAbsent()`. */
export function assertWriteCondition(condition: unknown): asserts condition is CheckpointWriteCondition {
  if (!isCheckpointWriteCondition(condition)) {
    const hint =
      condition === undefined
        ? ' save() takes three arguments: pass CheckpointWriteCondition.any() for an unconditional write.'
        : ' Build one with CheckpointWriteCondition.any(), .notOlderThan(token) or .ifAbsent().';
    throw new TypeError(`condition must be a CheckpointWriteCondition, got ${describeValue(condition)}.${hint}`);
  }
}

/** Validates the three arguments of `save` in the order they are declared. */
export function assertSaveArguments(
  subscriptionId: unknown,
  checkpoint: unknown,
  condition: unknown,
): asserts condition is CheckpointWriteCondition {
  assertSubscriptionId(subscriptionId);
  assertCheckpoint(checkpoint);
  assertWriteCondition(condition);
}

/** Throws `TypeError` unless `version` is a non-negative bigint, the only version `advanceWriteVersion` takes. */
export function assertWriteVersion(version: unknown): asserts version is bigint {
  if (typeof version !== 'bigint' || version < 0n) {
    throw new TypeError(
      `version must be a non-negative bigint (a fencing token), got ${describeValue(version)}. Pass the lease's token, e.g. 7n or BigInt(token).`,
    );
  }
}
