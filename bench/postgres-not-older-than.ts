import { availableParallelism, loadavg } from 'node:os';
import pg from 'pg';
import { CheckpointWriteCondition, PostgresCheckpointStorage } from '../runtime/index.js';
import { measureInFlight, median, percentile, type BenchOperation } from './in-flight-measurement.js';
import { startPostgresServer } from '../test/support/postgres/index.js';

// Two comparisons on one throwaway PostgreSQL server, through one pg.Pool with 16 writes in flight:
// 1. save with notOlderThan(token) against a plain INSERT … ON CONFLICT DO UPDATE of the same row shape (same table
//    definition, same values), each slot writing its own row, as each subscription has its own;
// 2. the same in a transaction: BEGIN, upsert a projection row, checkpoint through withinTransaction(client) with
//    notOlderThan, COMMIT, against the same transaction with the plain upsert as checkpoint.
// Each side runs in short back-to-back pairs (order alternating) so load from other processes on a shared machine
// hits both sides of a pair alike; the ratio is the median of the pairs' ratios, throughput the median slice,
// latency percentiles are over every timed operation. Target (issue 13): notOlderThan >= 0.9 x the plain upsert.

const inFlight = 16;
const operations = Number(process.env['BENCH_OPERATIONS'] ?? 4_000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 15);
const target = 0.9;
const { notOlderThan } = CheckpointWriteCondition;

interface Comparison {
  readonly title: string;
  readonly baseline: readonly [string, BenchOperation];
  readonly fenced: readonly [string, BenchOperation];
  readonly operations: number;
}

async function compare({ title, baseline, fenced, operations: count }: Comparison): Promise<number> {
  const variants = [baseline, fenced] as const;
  const throughput = new Map<string, number[]>(variants.map(([name]) => [name, []]));
  const latency = new Map<string, Float64Array[]>(variants.map(([name]) => [name, []]));
  const pairRatios: number[] = [];
  for (const [, operation] of variants) {
    await measureInFlight(operation, count, inFlight);
  }
  for (let round = 0; round < rounds; round += 1) {
    const pair = new Map<string, number>();
    for (const [name, operation] of round % 2 === 0 ? variants : [...variants].reverse()) {
      const { opsPerSecond, latencies } = await measureInFlight(operation, count, inFlight);
      pair.set(name, opsPerSecond);
      throughput.get(name)?.push(opsPerSecond);
      latency.get(name)?.push(latencies);
    }
    pairRatios.push((pair.get(fenced[0]) ?? 0) / (pair.get(baseline[0]) ?? 1));
  }
  console.log(`${title}: ${rounds} pairs of ${count} operations each, ${inFlight} in flight through one pg.Pool`);
  for (const [name] of variants) {
    const all = Float64Array.from((latency.get(name) ?? []).flatMap((part) => [...part])).sort();
    console.log(
      `  ${name.padEnd(44)} ${Math.round(median(throughput.get(name) ?? []))
        .toLocaleString('en-US')
        .padStart(7)} ops/s  p50 ${percentile(all, 0.5).toFixed(2)} ms  p99 ${percentile(all, 0.99).toFixed(2)} ms`,
    );
  }
  const sorted = Float64Array.from(pairRatios).sort();
  const ratio = median(pairRatios);
  console.log(
    `  ratio ${fenced[0]} / ${baseline[0]}: ${ratio.toFixed(3)} (median of ${rounds} pairs; quartiles ` +
      `${percentile(sorted, 0.25).toFixed(3)}–${percentile(sorted, 0.75).toFixed(3)})`,
  );
  return ratio;
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
  // The same table definition, so both sides write the same row shape under the same constraints.
  await pool.query(PostgresCheckpointStorage.createTableSql({ table: plainTable }));
  await pool.query('CREATE TABLE bench_projection (order_id text PRIMARY KEY, handled integer NOT NULL)');
  const plainUpsert =
    `INSERT INTO "${plainTable}" (subscription_id, checkpoint, version) VALUES ($1, $2, $3::numeric) ` +
    'ON CONFLICT (subscription_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, version = EXCLUDED.version';
  const project =
    'INSERT INTO bench_projection VALUES ($1, $2) ON CONFLICT (order_id) DO UPDATE SET handled = EXCLUDED.handled';
  // Ever higher tokens per slot, so every fenced write is accepted, as a lease holder's are.
  const tokens = { plain: new Array<bigint>(inFlight).fill(0n), fenced: new Array<bigint>(inFlight).fill(0n) };
  const nextToken = (side: 'plain' | 'fenced', slot: number): bigint => {
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
  const saveRatio = await compare({
    title: 'save notOlderThan vs plain upsert',
    operations,
    baseline: [
      'plain INSERT … ON CONFLICT DO UPDATE',
      (slot, sequence) =>
        pool.query(plainUpsert, [`orders-${slot}`, `position-${sequence}`, String(nextToken('plain', slot))]),
    ],
    fenced: [
      'save notOlderThan(token)',
      (slot, sequence) =>
        storage.save(`orders-${slot}`, `position-${sequence}`, notOlderThan(nextToken('fenced', slot))),
    ],
  });
  const transactionRatio = await compare({
    title: 'projection row + checkpoint in one transaction',
    operations: Math.ceil(operations / 2),
    baseline: [
      'plain transaction, plain upsert',
      (slot, sequence) =>
        inTransaction(async (client) => {
          await client.query(project, [`order-${slot}`, sequence]);
          await client.query(plainUpsert, [`orders-${slot}`, `position-${sequence}`, String(nextToken('plain', slot))]);
        }),
    ],
    fenced: [
      'withinTransaction(client) notOlderThan(token)',
      (slot, sequence) =>
        inTransaction(async (client) => {
          await client.query(project, [`order-${slot}`, sequence]);
          await storage
            .withinTransaction(client)
            .save(`orders-${slot}`, `position-${sequence}`, notOlderThan(nextToken('fenced', slot)));
        }),
    ],
  });
  const loadAfter = loadavg()[0] ?? Number.NaN;
  console.log(
    `target: save notOlderThan >= ${target} x plain upsert: ${saveRatio >= target ? 'met' : 'NOT met'} (${saveRatio.toFixed(3)}); ` +
      `withinTransaction ${transactionRatio.toFixed(3)} x a plain transaction; load average ${loadAfter.toFixed(1)} after the run`,
  );
  process.exitCode = saveRatio >= target ? 0 : 1;
} finally {
  await pool.end();
  await server.stop();
}
