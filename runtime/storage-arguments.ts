import type { Checkpoint } from './checkpoint.js';
import { CheckpointWriteCondition, readWriteCondition } from './checkpoint-write-condition.js';
import { describeValue } from './describe-value.js';
import { assertSubscriptionId, assertWellFormedString } from './subscription-id.js';

const buildOneHint = 'Build one with CheckpointWriteCondition.any(), .notOlderThan(token) or .ifAbsent().';

/** Throws `TypeError` unless `checkpoint` is a string of well-formed UTF-16 (a lone surrogate would be stored as U+FFFD). */
export function assertCheckpoint(checkpoint: unknown): asserts checkpoint is Checkpoint {
  assertWellFormedString(checkpoint, 'checkpoint');
}

/**
 * Reads `condition` once and returns it as a frozen condition (see `readWriteCondition`); throws `TypeError` unless it
 * is `any()`, `notOlderThan(v)` with a non-negative bigint, or `ifAbsent()`.
 */
export function toWriteCondition(condition: unknown): CheckpointWriteCondition {
  const read = readWriteCondition(condition);
  if (read === undefined) {
    const hint =
      condition === undefined
        ? ' save() takes three arguments: pass CheckpointWriteCondition.any() for an unconditional write.'
        : ` ${buildOneHint}`;
    throw new TypeError(`condition must be a CheckpointWriteCondition, got ${describeValue(condition)}.${hint}`);
  }
  return read;
}

/**
 * {@link toWriteCondition} for a condition that may be left out, as the trailing argument of every dual-anchor write:
 * `undefined` is `any()`.
 */
export function toOptionalWriteCondition(condition: unknown): CheckpointWriteCondition {
  if (condition === undefined) {
    return CheckpointWriteCondition.any();
  }
  const read = readWriteCondition(condition);
  if (read === undefined) {
    throw new TypeError(
      `condition must be a CheckpointWriteCondition or left out, got ${describeValue(condition)}. ${buildOneHint}`,
    );
  }
  return read;
}

/** Throws `TypeError` unless `condition` is `any()`, `notOlderThan(v)` with a non-negative bigint, or `ifAbsent()`. */
export function assertWriteCondition(condition: unknown): asserts condition is CheckpointWriteCondition {
  toWriteCondition(condition);
}

/**
 * Checks the three arguments of `save` in the order they are declared, before any I/O, and returns the condition
 * read once from `condition`: judge and write with the returned condition, never with the argument.
 * @throws TypeError for an id or checkpoint that is not a well-formed string, or a condition that is not one of the three.
 */
export function validateSaveArguments(
  subscriptionId: unknown,
  checkpoint: unknown,
  condition: unknown,
): CheckpointWriteCondition {
  assertSubscriptionId(subscriptionId);
  assertCheckpoint(checkpoint);
  return toWriteCondition(condition);
}

/**
 * Checks the three arguments of `save` like {@link validateSaveArguments}. Prefer that one in a storage: it also
 * hands back the condition read once, which this assertion cannot.
 */
export function assertSaveArguments(
  subscriptionId: unknown,
  checkpoint: unknown,
  condition: unknown,
): asserts condition is CheckpointWriteCondition {
  validateSaveArguments(subscriptionId, checkpoint, condition);
}

/** Throws `TypeError` unless `version` is a non-negative bigint, the only version `advanceWriteVersion` takes. */
export function assertWriteVersion(version: unknown): asserts version is bigint {
  if (typeof version !== 'bigint' || version < 0n) {
    throw new TypeError(
      `version must be a non-negative bigint (a fencing token), got ${describeValue(version)}. Pass the lease's token, e.g. 7n or BigInt(token).`,
    );
  }
}

/**
 * A promise rejected with `error` exactly as thrown: how a write whose checks run before its first `await` rejects, as
 * an async method would, without an async function's own promise around the backend's.
 */
export async function rejectedWith(error: unknown): Promise<never> {
  throw error;
}
