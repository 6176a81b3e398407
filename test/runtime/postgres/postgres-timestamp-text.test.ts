import { describe, expect, it } from 'vitest';
import { earliestTimestampMillis, latestTimestampMillis } from '../../../runtime/dual-anchor/index.js';
import { timestampText } from '../../../runtime/postgres/postgres-timestamp-text.js';

/** Every mismatch with `toISOString` among `millis`, as `millis: ours / toISOString`. */
function mismatches(millis: Iterable<number>): string[] {
  const found: string[] = [];
  for (const value of millis) {
    const ours = timestampText(value);
    const reference = new Date(value).toISOString();
    if (ours !== reference) {
      found.push(`${value}: ${ours} / ${reference}`);
    }
  }
  return found;
}

function* yearEdges(): Generator<number> {
  for (let year = 1; year <= 9_999; year += 1) {
    const start = new Date(0);
    start.setUTCFullYear(year, 0, 1);
    const january = start.getTime();
    yield january;
    yield january - 1;
    start.setUTCFullYear(year, 2, 1);
    yield start.getTime();
    yield start.getTime() - 1;
  }
}

describe('timestampText: what toISOString writes, without its cost', () => {
  it('matches toISOString at both ends of the range, the epoch, and around it', () => {
    expect(timestampText(earliestTimestampMillis)).toBe('0001-01-01T00:00:00.000Z');
    expect(timestampText(latestTimestampMillis)).toBe('9999-12-31T23:59:59.999Z');
    expect(mismatches([0, -1, 1, 999, 1_000, -86_400_000, 86_399_999, 951_782_400_000, 4_107_542_400_000])).toEqual([]);
  });

  it('matches toISOString at the first and last millisecond of every year and every March, leap years included', () => {
    expect(mismatches([...yearEdges()].filter((value) => value >= earliestTimestampMillis))).toEqual([]);
  });

  it('matches toISOString on 50,000 instants spread over years 1 to 9999', () => {
    const span = latestTimestampMillis - earliestTimestampMillis;
    const instants = Array.from(
      { length: 50_000 },
      (_, index) =>
        Math.floor(earliestTimestampMillis + ((index * 7_919 + 0.5) / 50_000) * span) % (latestTimestampMillis + 1),
    );
    expect(mismatches(instants)).toEqual([]);
  });
});
