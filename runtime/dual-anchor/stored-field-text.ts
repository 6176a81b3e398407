import { earliestTimestampMillis, latestTimestampMillis } from './timestamp.js';

const epochMillis = /^-?\d{1,15}$/;

/**
 * The timestamp a store's field or column holds as decimal epoch milliseconds, or `undefined` unless `text` is a
 * decimal integer within years 1 to 9999: what a store reads back is checked, since another program may have written it.
 */
export function storedTimestampMillis(text: string): number | undefined {
  const millis = Number(text);
  return epochMillis.test(text) && millis >= earliestTimestampMillis && millis <= latestTimestampMillis
    ? millis
    : undefined;
}

/** Whether a stored token (or, with `mustBeObject`, metadata) text parses as JSON, as every text this package writes does. */
export function isStoredJsonText(text: string, mustBeObject: boolean): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return !mustBeObject || (typeof value === 'object' && value !== null && !Array.isArray(value));
  } catch {
    return false;
  }
}
