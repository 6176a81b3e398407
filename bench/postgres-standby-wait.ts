import { availableParallelism } from 'node:os';
import pg from 'pg';
import { CheckpointWriteCondition, PostgresCheckpointStorage, PostgresLeaseStrategy } from '../runtime/index.js';
import { startPostgresServer, startPostgresStandby } from '../test/support/postgres/index.js';
import { measureGrants } from './grant-latencies.js';
import { comparePaired, formatComparison, loadAverage, type BenchSide, type PairedRun } from './paired-throughput.js';

// What waitForStandbys costs (ADR 0806), on a primary with one asynchronous standby streaming from it on loopback
// (directly: a relay in this process, as the tests use to hold the standby back, would add its own CPU and latency):
// notOlderThan saves with the default wait (polls of pg_stat_replication, one shared by every write waiting on the
// pool) against the same saves with waitForStandbys false, and against the plain upsert, through one pg.Pool, in
// back-to-back pairs as `npm run bench:postgres` does. Then the cost of a grant: PostgresLeaseStrategy.register of a
// free lease, one at a time, with and without the wait. Every figure is printed with the load average before and after.

const grants = Number(process.env['BENCH_GRANTS'] ?? 300);
const pollText = 'WITH RECURSIVE polls';

/** Runs the comparison on a primary and standby it starts and stops itself; resolves to the exit code (always 0). */
export async function benchStandbyWait(run: PairedRun): Promise<number> {
  const primary = await startPostgresServer();
  const standby = await startPostgresStandby(primary);
  const pool = new pg.Pool({ connectionString: primary.connectionString, max: run.inFlight });
  pool.on('error', () => undefined);
  let polls = 0;
  // The pool as the storage sees it (a pool: it has totalCount), counting the polls it sends.
  const counted = Object.assign(Object.create(pool) as pg.Pool, {
    query: (text: string, values: unknown[]) => {
      polls += text.startsWith(pollText) ? 1 : 0;
      return pool.query(text, values);
    },
  });
  try {
    const loadBefore = loadAverage();
    const waiting = new PostgresCheckpointStorage(counted, { table: 'bench_waiting' });
    const notWaiting = new PostgresCheckpointStorage(pool, { table: 'bench_not_waiting', waitForStandbys: false });
    await waiting.createTable();
    await notWaiting.createTable();
    await pool.query(PostgresCheckpointStorage.createTableSql({ table: 'bench_plain' }));
    while ((await pool.query('SELECT FROM pg_stat_replication WHERE replay_lsn IS NOT NULL')).rowCount !== 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const tokens = new Map<string, bigint>();
    const fenced = (name: string, storage: PostgresCheckpointStorage, prefix: string): BenchSide => ({
      name,
      write: (slot, sequence) => {
        const token = (tokens.get(`${prefix}-${slot}`) ?? 0n) + 1n;
        tokens.set(`${prefix}-${slot}`, token);
        return storage.save(`${prefix}-${slot}`, `position-${sequence}`, CheckpointWriteCondition.notOlderThan(token));
      },
    });
    const withWait = fenced("save notOlderThan, waitForStandbys 'auto'", waiting, 'waiting');
    const withoutWait = fenced('save notOlderThan, waitForStandbys false', notWaiting, 'not-waiting');
    const plainUpsert: BenchSide = {
      name: 'plain INSERT … ON CONFLICT DO UPDATE',
      write: (slot, sequence) =>
        pool.query(
          'INSERT INTO "bench_plain" (subscription_id, checkpoint, version) VALUES ($1, $2, $3) ' +
            'ON CONFLICT (subscription_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, version = EXCLUDED.version',
          [`plain-${slot}`, `position-${sequence}`, String(sequence)],
        ),
    };
    const againstNoWait = await comparePaired(withoutWait, withWait, run);
    const waitedWrites = (run.rounds + 1) * run.operations;
    const pollsSent = polls;
    const againstUpsert = await comparePaired(plainUpsert, withWait, run);
    const grantWith = await grantsOn(primary.connectionString, 'auto');
    const grantWithout = await grantsOn(primary.connectionString, false);
    const version = (await pool.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version;
    console.log(
      `postgres notOlderThan with and without waiting for a standby: ${run.rounds} pairs of ${run.operations} writes each, ` +
        `${run.inFlight} in flight, one pg.Pool, a primary with one asynchronous standby on loopback, postgres ${version ?? '?'}, ` +
        `Node ${process.version}, load average ${loadBefore} before and ${loadAverage()} after, on ${availableParallelism()} cores`,
    );
    for (const line of formatComparison(againstNoWait, 'waiting / not waiting')) {
      console.log(`  ${line}`);
    }
    console.log(
      `  ${pollsSent} polls for ${waitedWrites} waiting writes: ${(waitedWrites / Math.max(1, pollsSent)).toFixed(1)} writes share a poll`,
    );
    for (const line of formatComparison(againstUpsert, 'waiting / plain upsert')) {
      console.log(`  ${line}`);
    }
    console.log(
      `grant (register of a free lease, one at a time, ${grants} each): waiting p50 ${grantWith.p50.toFixed(2)} ms ` +
        `p99 ${grantWith.p99.toFixed(2)} ms; waitForStandbys false p50 ${grantWithout.p50.toFixed(2)} ms p99 ${grantWithout.p99.toFixed(2)} ms`,
    );
    return 0;
  } finally {
    await pool.end();
    await standby.stop();
    await primary.stop();
  }
}

/** {@link measureGrants} on a strategy of its own, with `waitForStandbys` as given. */
async function grantsOn(
  connectionString: string,
  waitForStandbys: 'auto' | false,
): Promise<{ p50: number; p99: number }> {
  const pool = new pg.Pool({ connectionString, max: 2 });
  const strategy = new PostgresLeaseStrategy(pool, {
    table: `bench_grants_${String(waitForStandbys)}`,
    leaseTimeMs: 60_000,
    waitForStandbys,
  });
  try {
    await strategy.createTable();
    return await measureGrants(strategy, grants, 'does the standby stream?');
  } finally {
    await strategy.shutdown();
    await pool.end();
  }
}
