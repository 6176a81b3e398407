import { describeValue } from '../describe-value.js';

/** With the u flag a surrogate pair is one code point, so this matches only a surrogate standing alone. */
const loneSurrogate = /\p{Surrogate}/u;

/**
 * Throws `TypeError` unless `value` can be stored in a PostgreSQL `text` column unchanged: PostgreSQL refuses the NUL
 * character, and node-postgres encodes a lone UTF-16 surrogate as U+FFFD, so two different ids would become the same
 * row. Call after the contract's own type checks.
 */
export function assertPostgresText(what: string, value: string): void {
  if (value.includes('\0')) {
    throw new TypeError(
      `${what} ${describeValue(value)} contains a NUL character (\\u0000), which PostgreSQL text cannot store. Nothing was sent; ` +
        'encode the value (e.g. base64) or drop the character.',
    );
  }
  if (loneSurrogate.test(value)) {
    throw new TypeError(
      `${what} ${describeValue(value)} is not well-formed UTF-16 (it has a lone surrogate), so it cannot reach PostgreSQL unchanged: ` +
        'the driver would replace it with U+FFFD and two different values would share one row. Nothing was sent.',
    );
  }
}
