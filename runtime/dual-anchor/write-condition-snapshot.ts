import { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import { describeValue } from '../describe-value.js';

/**
 * Reads `condition` once (its `kind`, then a `notOlderThan` version) and returns a frozen condition built from those
 * copies, so a getter or a caller mutating the object mid-write cannot make the store judge one condition and report
 * another. `undefined` is `any()`: the trailing argument of every dual-anchor write is optional.
 * @throws TypeError for anything that is not `any()`, `notOlderThan(v)` with a non-negative bigint, or `ifAbsent()`.
 */
export function writeConditionSnapshot(condition: unknown): CheckpointWriteCondition {
  if (condition === undefined) {
    return CheckpointWriteCondition.any();
  }
  if (typeof condition === 'object' && condition !== null) {
    const kind: unknown = (condition as { readonly kind?: unknown }).kind;
    switch (kind) {
      case 'any':
        return CheckpointWriteCondition.any();
      case 'ifAbsent':
        return CheckpointWriteCondition.ifAbsent();
      case 'notOlderThan': {
        const version: unknown = (condition as { readonly version?: unknown }).version;
        if (typeof version === 'bigint' && version >= 0n) {
          return CheckpointWriteCondition.notOlderThan(version);
        }
        break;
      }
    }
  }
  throw new TypeError(
    `condition must be a CheckpointWriteCondition or left out, got ${describeValue(condition)}. ` +
      'Build one with CheckpointWriteCondition.any(), .notOlderThan(token) or .ifAbsent().',
  );
}
