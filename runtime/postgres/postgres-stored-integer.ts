import { describeValue } from '../describe-value.js';

const decimal = /^\d+$/u;

/**
 * A version or token the statements return as `numeric::text`, as an exact bigint; `undefined` for SQL NULL or no row.
 * @throws Error for anything else: something other than this package wrote the column.
 */
export function parseStoredInteger(stored: unknown, where: string): bigint | undefined {
  if (stored === null || stored === undefined) {
    return undefined;
  }
  if (typeof stored === 'string' && decimal.test(stored)) {
    return BigInt(stored);
  }
  throw new Error(
    `${where} holds ${describeValue(stored)}, not a non-negative decimal integer. Something other than checkpoint-fencing ` +
      'wrote it; write a whole number there, or NULL.',
  );
}
