import { describeValue } from '../describe-value.js';

/** 0001-01-01T00:00:00.000Z: the earliest timestamp a store keeps, the start of the years every backend holds. */
export const earliestTimestampMillis = -62_135_596_800_000;
/** 9999-12-31T23:59:59.999Z: the latest timestamp a store keeps. */
export const latestTimestampMillis = 253_402_300_799_999;

/**
 * The epoch milliseconds of `value`, which must be a valid `Date` (from any realm) in years 1 to 9999. Stores keep
 * this number, so a timestamp reads back as a `Date` equal to the millisecond, which is all a `Date` holds; the range
 * is what PostgreSQL's `timestamptz`, MongoDB and ISO 8601 all hold, so no store narrows it (ADR 0902).
 * @throws TypeError naming `what` for anything else.
 */
export function timestampMillis(value: unknown, what: string): number {
  if (!(value instanceof Date) && Object.prototype.toString.call(value) !== '[object Date]') {
    const hint =
      typeof value === 'string' || typeof value === 'number' ? ` Wrap it: new Date(${describeValue(value)}).` : '';
    throw new TypeError(`${what} must be a Date, got ${describeValue(value)}.${hint}`);
  }
  const millis = (value as Date).getTime();
  if (Number.isNaN(millis)) {
    throw new TypeError(`${what} must be a valid Date, got an invalid Date (its time is NaN).`);
  }
  if (millis < earliestTimestampMillis || millis > latestTimestampMillis) {
    throw new TypeError(
      `${what} must be a Date in years 1 to 9999, got ${(value as Date).toISOString()}: stores keep timestamps that every backend can hold.`,
    );
  }
  return millis;
}
