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

/**
 * What `notOlderThan` returns: frozen, so its `version` reads the same every time, and branded, so a storage can tell
 * it from a look-alike whose `version` getter could answer differently on every read.
 */
class NotOlderThanCondition implements NotOlderThanWriteCondition {
  readonly kind = 'notOlderThan';
  readonly version: bigint;
  readonly #checked = true;

  constructor(version: bigint) {
    // Checked here too, not only in the factory: a subclass reaching this constructor is branded as well.
    if (typeof version !== 'bigint' || version < 0n) {
      throw new RangeError(`notOlderThan(${describeValue(version)}): a version must be a non-negative bigint.`);
    }
    this.version = version;
    Object.freeze(this);
  }

  toString(): string {
    return `notOlderThan(${this.version})`;
  }

  /** True for an object this constructor made (and froze), never for a copy of one. */
  static madeHere(value: object): value is NotOlderThanCondition {
    return #checked in value;
  }
}
Object.freeze(NotOlderThanCondition.prototype);

/** Factories for the three write conditions; each returns a frozen object, and `String(condition)` reads like the call that made it. */
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
    return new NotOlderThanCondition(toVersion(version));
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

/**
 * Reads `value` as a write condition, reading `kind` and `version` once each, and returns a frozen condition holding
 * what was read (`value` itself when a factory made it); `undefined` when it is not one of the three conditions with
 * a non-negative bigint version. A storage judges and writes the returned condition, never `value`: an object whose
 * `version` getter answers `10n` and later `-5n` must not pass the check with one answer and be written with the other.
 */
export function readWriteCondition(value: unknown): CheckpointWriteCondition | undefined {
  if (typeof value !== 'object' || value === null) {
    return undefined;
  }
  if (NotOlderThanCondition.madeHere(value) || value === anyCondition || value === ifAbsentCondition) {
    return value as CheckpointWriteCondition;
  }
  const kind: unknown = (value as { readonly kind?: unknown }).kind;
  switch (kind) {
    case 'any':
      return anyCondition;
    case 'ifAbsent':
      return ifAbsentCondition;
    case 'notOlderThan': {
      const version: unknown = (value as { readonly version?: unknown }).version;
      return typeof version === 'bigint' && version >= 0n ? new NotOlderThanCondition(version) : undefined;
    }
    default:
      return undefined;
  }
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
  return readWriteCondition(value) !== undefined;
}
