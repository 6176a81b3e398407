import { beforeAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointStorage, PostgresLeaseStrategy } from '../../runtime/index.js';
import type { InspectionJsonRow } from '../../operator/inspection-report.js';
import { useSharedPostgres } from '../support/postgres/index.js';
import { drainWaits, inspectInProcess, reportTiming } from './support/in-process-inspect.js';

// inspect prints as it reads: 6,000 healthy subscriptions (12,000 rows, so that progress shows) read in-process, where
// the order of stdout and stderr writes is one sequence. The report must start before the read ends, and no write may
// hold more rows than one page, 1,000 ids.

const postgres = useSharedPostgres();
const subscriptions = 6_000;

beforeAll(async () => {
  const pool = postgres.pool();
  await new PostgresCheckpointStorage(pool).createTable();
  await new PostgresLeaseStrategy(pool).createTable();
  const ids = "'sub-' || lpad(i::text, 4, '0')";
  await pool.query(
    `INSERT INTO checkpoint_fencing_checkpoints SELECT ${ids}, 'cp-' || i, 4 FROM generate_series(0, $1::integer - 1) AS i`,
    [subscriptions],
  );
  await pool.query(
    `INSERT INTO checkpoint_fencing_leases SELECT ${ids}, 4, 'node-a 6f1c2d3e-9b8a-4c7d-8e6f-5a4b3c2d1e0f/1', ` +
      `now() + interval '10 minutes' FROM generate_series(0, $1::integer - 1) AS i`,
    [subscriptions],
  );
});

describe('inspect --postgres streams', { timeout: 60_000 }, () => {
  it('prints JSON rows a page at a time while it reads, one valid array in id order', async () => {
    const run = await inspectInProcess(['--postgres', postgres.connectionString, '--json']);
    expect(run.code).toBe(0);
    const timing = reportTiming(run, (text) => text.match(/^ {4}"id": /gmu)?.length ?? 0);
    expect(timing.readEnded).toBeGreaterThan(0);
    expect(timing.firstRow).toBeGreaterThanOrEqual(0);
    expect(timing.firstRow).toBeLessThan(timing.readEnded);
    expect(timing.mostRowsInOneWrite).toBeLessThanOrEqual(1_000);
    const stdout = run.writes.flatMap((write) => (write.stream === 'out' ? [write.text] : [])).join('');
    const rows = JSON.parse(stdout) as InspectionJsonRow[];
    expect(rows.map((row) => row.id)).toEqual(
      Array.from({ length: subscriptions }, (_, index) => `sub-${index.toString().padStart(4, '0')}`),
    );
    expect(rows.every((row) => row.flags.length === 0 && row.problems.length === 0)).toBe(true);
  });

  it('prints text rows while it reads, then the summary counted over all of them', async () => {
    const run = await inspectInProcess(['--postgres', postgres.connectionString]);
    expect(run.code).toBe(0);
    const timing = reportTiming(run, (text) => text.match(/^sub-\d{4} /gmu)?.length ?? 0);
    expect(timing.firstRow).toBeGreaterThanOrEqual(0);
    expect(timing.firstRow).toBeLessThan(timing.readEnded);
    const stdout = run.writes.flatMap((write) => (write.stream === 'out' ? [write.text] : [])).join('');
    expect(stdout.match(/^sub-\d{4} /gmu)).toHaveLength(subscriptions);
    expect(stdout).toMatch(/\n6000 subscriptions, all healthy; 12,000 rows read from checkpoint_fencing_checkpoints/u);
  });

  it('reads no further while stdout is full: each write of rows waits for the drain of the one before', async () => {
    // stdout drains 20 ms after each write, as under a reader slower than the store.
    const run = await inspectInProcess(['--postgres', postgres.connectionString, '--json'], 20);
    expect(run.code).toBe(0);
    const waits = drainWaits(run, (text) => text.match(/^ {4}"id": /gmu)?.length ?? 0);
    expect(waits.rowWrites).toBeGreaterThan(2);
    expect(waits.unwaited).toBe(0);
  });
});
