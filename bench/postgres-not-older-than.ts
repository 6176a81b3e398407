import { availableParallelism, loadavg } from 'node:os';
import pg from 'pg';
import { CheckpointWriteCondition, PostgresCheckpointStorage } from '../runtime/index.js';
import { startPostgresServer } from '../test/support/postgres/index.js';
import { comparePaired, formatComparison, type BenchSide } from './paired-throughput.js';
import { benchStandbyWait } from './postgres-standby-wait.js';

// Two comparisons on one throwaway PostgreSQL server, through one pg.Pool with 16 writes in flight:
// 1. save with notOlderThan(token) against a plain INSERT … ON CONFLICT DO UPDATE of the same row shape (same table
//    definition, same values), each slot writing its own row, as each subscription has its own;
// 2. the same in a transaction: BEGIN, upsert a projection row, checkpoint through withinTransaction(client) with
//    notOlderThan, COMMIT, against the same transaction with the plain upsert as checkpoint.
// Each side runs in short back-to-back pairs (order alternating) so load from other processes on a shared machine
// hits both sides of a pair alike; the ratio is the median of the pairs' ratios, throughput the median slice,
// latency percentiles are over every timed operation. Target (issue 13): notOlderThan >= 0.9 x the plain upsert.
// 3. what the default waitForStandbys costs on this primary, which has no standby: the same saves with
//    waitForStandbys false, whose statement carries no check for standbys (ADR 0807).
// With --standby: what waiting for a standby costs, on a primary with one (bench/postgres-standby-wait.ts).

const inFlight = 16;
const operations = Number(process.env['BENCH_OPERATIONS'] ?? 4_000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 15);
const target = 0.9;
const { notOlderThan } = CheckpointWriteCondition;

const run = { inFlight, operations, rounds };

if (process.argv.includes('--standby')) {
  // It stops what it started before it resolves.
  process.exit(await benchStandbyWait(run));
}

async function compare(
  title: string,
  baseline: BenchSide,
  fenced: BenchSide,
  count: number,
  ratioTarget?: number,
): Promise<number> {
  const comparison = await comparePaired(baseline, fenced, { ...run, operations: count });
  console.log(`${title}: ${rounds} pairs of ${count} operations each, ${inFlight} in flight through one pg.Pool`);
  for (const line of formatComparison(comparison, `${fenced.name} / ${baseline.name}`, ratioTarget)) {
    console.log(`  ${line}`);
  }
  return comparison.ratio;
}

const loadBefore = loadavg()[0] ?? Number.NaN;
const server = await startPostgresServer();
const pool = new pg.Pool({ connectionString: server.connectionString, max: inFlight });
// Idle connections see the server stop at the end; without a listener that error would end the process.
pool.on('error', () => undefined);
try {
  const fencedTable = 'bench_fenced_checkpoints';
  const plainTable = 'bench_plain_checkpoints';
  const storage = new PostgresCheckpointStorage(pool, { table: fencedTable });
  await storage.createTable();
  const unchecked = new PostgresCheckpointStorage(pool, {
    table: 'bench_unchecked_checkpoints',
    waitForStandbys: false,
  });
  await unchecked.createTable();
  // The same table definition, so both sides write the same row shape under the same constraints.
  await pool.query(PostgresCheckpointStorage.createTableSql({ table: plainTable }));
  await pool.query('CREATE TABLE bench_projection (order_id text PRIMARY KEY, handled integer NOT NULL)');
  const plainUpsert =
    `INSERT INTO "${plainTable}" (subscription_id, checkpoint, version) VALUES ($1, $2, $3::numeric) ` +
    'ON CONFLICT (subscription_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, version = EXCLUDED.version';
  const project =
    'INSERT INTO bench_projection VALUES ($1, $2) ON CONFLICT (order_id) DO UPDATE SET handled = EXCLUDED.handled';
  // Ever higher tokens per slot, so every fenced write is accepted, as a lease holder's are.
  const tokens = {
    plain: new Array<bigint>(inFlight).fill(0n),
    fenced: new Array<bigint>(inFlight).fill(0n),
    unchecked: new Array<bigint>(inFlight).fill(0n),
  };
  const nextToken = (side: keyof typeof tokens, slot: number): bigint => {
    tokens[side][slot] = (tokens[side][slot] ?? 0n) + 1n;
    return tokens[side][slot];
  };
  const inTransaction = async (work: (client: pg.PoolClient) => Promise<unknown>): Promise<void> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await work(client);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  };

  const version = (await pool.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version;
  console.log(
    `postgres ${version ?? '?'}, Node ${process.version}, ${availableParallelism()} cores, ` +
      `load average ${loadBefore.toFixed(1)} before the run`,
  );
  const saveRatio = await compare(
    'save notOlderThan vs plain upsert',
    {
      name: 'plain INSERT … ON CONFLICT DO UPDATE',
      write: (slot, sequence) =>
        pool.query(plainUpsert, [`orders-${slot}`, `position-${sequence}`, String(nextToken('plain', slot))]),
    },
    {
      name: 'save notOlderThan(token)',
      write: (slot, sequence) =>
        storage.save(`orders-${slot}`, `position-${sequence}`, notOlderThan(nextToken('fenced', slot))),
    },
    operations,
    target,
  );
  const checkRatio = await compare(
    'what the default waitForStandbys costs on a primary without standbys',
    {
      name: 'save notOlderThan, waitForStandbys false',
      write: (slot, sequence) =>
        unchecked.save(`orders-${slot}`, `position-${sequence}`, notOlderThan(nextToken('unchecked', slot))),
    },
    {
      name: "save notOlderThan, waitForStandbys 'auto'",
      write: (slot, sequence) =>
        storage.save(`orders-${slot}`, `position-${sequence}`, notOlderThan(nextToken('fenced', slot))),
    },
    operations,
  );
  const transactionRatio = await compare(
    'projection row + checkpoint in one transaction',
    {
      name: 'plain transaction, plain upsert',
      write: (slot, sequence) =>
        inTransaction(async (client) => {
          await client.query(project, [`order-${slot}`, sequence]);
          await client.query(plainUpsert, [`orders-${slot}`, `position-${sequence}`, String(nextToken('plain', slot))]);
        }),
    },
    {
      name: 'withinTransaction(client) notOlderThan(token)',
      write: (slot, sequence) =>
        inTransaction(async (client) => {
          await client.query(project, [`order-${slot}`, sequence]);
          await storage
            .withinTransaction(client)
            .save(`orders-${slot}`, `position-${sequence}`, notOlderThan(nextToken('fenced', slot)));
        }),
    },
    Math.ceil(operations / 2),
  );
  const loadAfter = loadavg()[0] ?? Number.NaN;
  console.log(
    `target: save notOlderThan >= ${target} x plain upsert: ${saveRatio >= target ? 'met' : 'NOT met'} (${saveRatio.toFixed(3)}); ` +
      `the standby check ${checkRatio.toFixed(3)} x the same saves without it; ` +
      `withinTransaction ${transactionRatio.toFixed(3)} x a plain transaction; load average ${loadAfter.toFixed(1)} after the run`,
  );
  process.exitCode = saveRatio >= target ? 0 : 1;
} finally {
  await pool.end();
  await server.stop();
}
