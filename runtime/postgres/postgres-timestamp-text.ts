const millisPerDay = 86_400_000;
/** Days from 0000-03-01 to 1970-01-01 in the proleptic Gregorian calendar. */
const epochShift = 719_468;
const daysPerEra = 146_097;

/**
 * The ISO 8601 UTC text `Date.prototype.toISOString` writes for `millis`, e.g. `2024-05-01T10:00:00.123Z`, for the
 * epoch milliseconds of years 1 to 9999 a write plan holds (already validated), which PostgreSQL parses into a
 * `timestamptz` exactly under every session time zone and date style (ADR 0904). Written by hand because
 * `toISOString` costs about a microsecond, two of them a write, on a path held to a plain upsert; the calendar
 * arithmetic is Howard Hinnant's `civil_from_days`, checked against `toISOString` over the whole range.
 */
export function timestampText(millis: number): string {
  const days = Math.floor(millis / millisPerDay);
  const ofDay = millis - days * millisPerDay;
  const shifted = days + epochShift;
  const era = Math.floor(shifted / daysPerEra);
  const dayOfEra = shifted - era * daysPerEra;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1_460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(ofDay / 3_600_000);
  const minutes = Math.floor(ofDay / 60_000) % 60;
  const seconds = Math.floor(ofDay / 1_000) % 60;
  const milliseconds = ofDay % 1_000;
  return (
    `${year < 1_000 ? (year < 100 ? (year < 10 ? '000' : '00') : '0') : ''}${year}-${twoDigits(month)}-${twoDigits(day)}` +
    `T${twoDigits(hours)}:${twoDigits(minutes)}:${twoDigits(seconds)}.` +
    `${milliseconds < 100 ? (milliseconds < 10 ? '00' : '0') : ''}${milliseconds}Z`
  );
}

function twoDigits(value: number): string {
  return value < 10 ? `0${value}` : `${value}`;
}
