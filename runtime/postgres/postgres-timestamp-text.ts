const millisPerDay = 86_400_000;
/** Days from 0000-03-01 to 1970-01-01 in the proleptic Gregorian calendar. */
const epochShift = 719_468;
const daysPerEra = 146_097;

/** Character codes of the text: a digit d is `zero + d`. */
const zero = 0x30;
const hyphen = 0x2d;
const letterT = 0x54;
const colon = 0x3a;
const fullStop = 0x2e;
const letterZ = 0x5a;

/**
 * The ISO 8601 UTC text `Date.prototype.toISOString` writes for `millis`, e.g. `2024-05-01T10:00:00.123Z`, for the
 * epoch milliseconds of years 1 to 9999 a write plan holds (already validated), which PostgreSQL parses into a
 * `timestamptz` exactly under every session time zone and date style (ADR 0904). Written by hand because
 * `toISOString` costs about a microsecond, two of them a write, on a path held to a plain upsert; the calendar
 * arithmetic is Howard Hinnant's `civil_from_days`, checked against `toISOString` over the whole range. The 24
 * characters go out in one `String.fromCharCode`: concatenating the parts made about twenty intermediate strings, some
 * 450 bytes a timestamp, which the garbage collector then paid for on every write.
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
  const secondsOfDay = Math.floor(ofDay / 1_000);
  const milliseconds = ofDay - secondsOfDay * 1_000;
  const minutesOfDay = Math.floor(secondsOfDay / 60);
  const hours = Math.floor(minutesOfDay / 60);
  const minutes = minutesOfDay - hours * 60;
  const seconds = secondsOfDay - minutesOfDay * 60;
  return String.fromCharCode(
    zero + Math.floor(year / 1_000),
    zero + (Math.floor(year / 100) % 10),
    zero + (Math.floor(year / 10) % 10),
    zero + (year % 10),
    hyphen,
    zero + Math.floor(month / 10),
    zero + (month % 10),
    hyphen,
    zero + Math.floor(day / 10),
    zero + (day % 10),
    letterT,
    zero + Math.floor(hours / 10),
    zero + (hours % 10),
    colon,
    zero + Math.floor(minutes / 10),
    zero + (minutes % 10),
    colon,
    zero + Math.floor(seconds / 10),
    zero + (seconds % 10),
    fullStop,
    zero + Math.floor(milliseconds / 100),
    zero + (Math.floor(milliseconds / 10) % 10),
    zero + (milliseconds % 10),
    letterZ,
  );
}
