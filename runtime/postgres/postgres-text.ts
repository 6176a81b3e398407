import { quoteText } from '../describe-value.js';

/**
 * Throws `TypeError` when `value` holds the NUL character, which a PostgreSQL `text` column cannot store. The rules every
 * backend shares (a string, well-formed UTF-16) are checked first, by `runtime/subscription-id.ts`; this is the one
 * PostgreSQL adds.
 */
export function assertPostgresText(what: string, value: string): void {
  if (value.includes('\0')) {
    throw new TypeError(
      `${what} ${quoteText(value)} contains a NUL character (\\u0000), which PostgreSQL text cannot store. Nothing was sent; ` +
        'encode the value (e.g. base64) or drop the character.',
    );
  }
}
