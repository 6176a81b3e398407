import { describeValue } from './describe-value.js';

/** The unconditional write: always accepted, leaves a stored version exactly as it was. */
export interface AnyWriteCondition {
  readonly kind: 'any';
  /** Reads `any()`. */
  toString(): string;
}

/** The fence: accepted when nothing is stored, the stored checkpoint has no version, or its version is ≤ `version`; stores `version`. */
export interface NotOlderThanWriteCondition {
  readonly kind: 'notOlderThan';
  readonly version: bigint;
  /** Reads `notOlderThan(7)`. */
  toString(): string;
}

/** The start-position pin: accepted only when no checkpoint is stored; stores no version. */
export interface IfAbsentWriteCondition {
  readonly kind: 'ifAbsent';
  /** Reads `ifAbsent()`. */
  toString(): string;
}

/** The condition a checkpoint write must satisfy, judged atomically with the write. */
export type CheckpointWriteCondition = AnyWriteCondition | NotOlderThanWriteCondition | IfAbsentWriteCondition;

const anyCondition: AnyWriteCondition = Object.freeze({
  kind: 'any',
  toString: () => 'any()',
});

const ifAbsentCondition: IfAbsentWriteCondition = Object.freeze({
  kind: 'ifAbsent',
  toString: () => 'ifAbsent()',
});

/** Factories for the three write conditions; `String(condition)` reads like the call that made it. */
export const CheckpointWriteCondition = Object.freeze({
  /** The unconditional write. */
  any(): AnyWriteCondition {
    return anyCondition;
  },

  /**
   * The fence for a writer holding fencing token `version`.
   * @throws RangeError unless `version` is a non-negative bigint or a non-negative safe integer.
   */
  notOlderThan(version: bigint | number): NotOlderThanWriteCondition {
    const exact = toVersion(version);
    return Object.freeze({ kind: 'notOlderThan', version: exact, toString: () => `notOlderThan(${exact})` });
  },

  /** Accepted only while no checkpoint is stored. */
  ifAbsent(): IfAbsentWriteCondition {
    return ifAbsentCondition;
  },
});

function toVersion(version: unknown): bigint {
  if (typeof version === 'bigint') {
    if (version < 0n) {
      throw new RangeError(`notOlderThan(${version}): a version must not be negative; fencing tokens start at 0.`);
    }
    return version;
  }
  if (typeof version === 'number') {
    if (!Number.isSafeInteger(version) || version < 0) {
      throw new RangeError(
        `notOlderThan(${version}): a number version must be a non-negative safe integer (0 to ${Number.MAX_SAFE_INTEGER}); pass a bigint for larger versions.`,
      );
    }
    return BigInt(version);
  }
  throw new RangeError(
    `notOlderThan(${describeValue(version)}): a version must be a bigint or a non-negative safe integer number.`,
  );
}

/** Renders any condition, including a plain object literal that lacks the factories' `toString`, as `notOlderThan(7)`. */
export function formatWriteCondition(condition: CheckpointWriteCondition): string {
  switch (condition.kind) {
    case 'any':
      return 'any()';
    case 'ifAbsent':
      return 'ifAbsent()';
    case 'notOlderThan':
      return `notOlderThan(${condition.version})`;
  }
}

/** True when `value` is one of the three conditions, with a non-negative bigint version for `notOlderThan`. */
export function isCheckpointWriteCondition(value: unknown): value is CheckpointWriteCondition {
  if (typeof value !== 'object' || value === null || !('kind' in value)) {
    return false;
  }
  switch (value.kind) {
    case 'any':
    case 'ifAbsent':
      return true;
    case 'notOlderThan':
      return 'version' in value && typeof value.version === 'bigint' && value.version >= 0n;
    default:
      return false;
  }
}
