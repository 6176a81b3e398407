import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { PostgresCheckpointStorage, PostgresLeaseStrategy } from '../runtime/index.js';
import {
  CheckpointKeyLayout,
  defaultRedisLeaseKeyPrefix,
  defaultRedisVersionKeyPrefix,
  redisLeaseKeys,
} from '../runtime/store-layout-entry.js';
import { startPostgresServer } from '../test/support/postgres/index.js';
import { startRedisServer } from '../test/support/redis/index.js';

// `checkpoint-fencing inspect` over 10,000 and 100,000 healthy subscriptions (a checkpoint, its version, a token
// counter and a live lease each), on a throwaway redis-server and a throwaway PostgreSQL server, in text and with
// --json. The CLI runs as a child process, as an operator runs it; wall time is from spawn to exit, peak RSS is the
// child's own ru_maxrss, which a preloaded module writes to fd 3 as the process exits. Targets (issue 21): peak RSS
// at most 100 MB at 100,000 subscriptions, checked as 95 MiB (99.6 MB, so met in either reading of MB), and flat as
// the keyspace grows, checked as within 8 MiB of the smallest size; at most 10 s on Redis and 5 s on PostgreSQL at
// 100,000. BENCH_SIZES=1000,5000 measures other sizes.

const sizes = (process.env['BENCH_SIZES'] ?? '10000,100000').split(',').map(Number);
const targets = { rssMiB: 95, flatWithinMiB: 8, seconds: { redis: 10, postgres: 5 } } as const;
// The CLI package's own build (npm run build makes it), which loads the runtime's as installed.
const cli = fileURLToPath(new URL('../../operator/dist/operator/cli.js', import.meta.url));
const reportMaxRss =
  'data:text/javascript,import{writeSync}from"node:fs";' +
  'process.on("exit",()=>{writeSync(3,String(process.resourceUsage().maxRSS))})';
const version = 7n;
const owner = `bench-node ${randomUUID()}/1`;

type Backend = 'redis' | 'postgres';

interface InspectRun {
  readonly seconds: number;
  readonly peakRssMiB: number;
}

/** Runs the CLI's `inspect` with `args`; fails unless it exits 0 and prints one row a subscription. */
async function inspect(args: readonly string[], subscriptions: number): Promise<InspectRun> {
  const startedAt = performance.now();
  const child = spawn(process.execPath, ['--import', reportMaxRss, cli, 'inspect', ...args], {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  // The four pipes asked for above; Node types a stdio array of more than three as possibly anything.
  const [, stdout, stderrPipe, maxRssPipe] = child.stdio as unknown as [null, Readable, Readable, Readable];
  let rows = 0;
  let partialLine = '';
  // Counted line by line, never kept: the output of 100,000 rows is tens of megabytes.
  stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partialLine + chunk).split('\n');
    partialLine = lines.pop() ?? '';
    rows += lines.filter((line) => line.startsWith('sub-') || line.startsWith('    "id": "sub-')).length;
  });
  let stderr = '';
  stderrPipe.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let maxRssKiB = '';
  maxRssPipe.setEncoding('utf8').on('data', (chunk: string) => (maxRssKiB += chunk));
  const status = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const seconds = (performance.now() - startedAt) / 1_000;
  if (status !== 0 || rows !== subscriptions) {
    throw new Error(
      `inspect ${args.join(' ')} exited ${String(status)} with ${rows} of ${subscriptions} rows; stderr: ${stderr.slice(-2_000)}`,
    );
  }
  return { seconds, peakRssMiB: Number(maxRssKiB) / 1_024 };
}

function subscriptionId(index: number): string {
  return `sub-${index.toString().padStart(6, '0')}`;
}

/** Adds subscriptions `from` to `to` (exclusive) to a redis-server, with the storage's and the strategy's layouts. */
async function fillRedis(client: Redis, from: number, to: number): Promise<void> {
  const layout = new CheckpointKeyLayout('', defaultRedisVersionKeyPrefix);
  for (let start = from; start < to; start += 5_000) {
    const pipeline = client.pipeline();
    for (let index = start; index < Math.min(to, start + 5_000); index += 1) {
      const id = subscriptionId(index);
      const { checkpointKey, versionKey } = layout.keysFor(id);
      const leaseKeys = redisLeaseKeys(defaultRedisLeaseKeyPrefix, id);
      pipeline.mset(checkpointKey, `cp-${index}`, versionKey, version.toString(), leaseKeys.token, version.toString());
      pipeline.set(leaseKeys.lease, `${version} ${owner}`, 'PX', 3_600_000);
    }
    await pipeline.exec();
  }
}

/** Adds subscriptions `from` to `to` (exclusive) to the default tables of the storage and the strategy. */
async function fillPostgres(pool: pg.Pool, from: number, to: number): Promise<void> {
  const ids = "'sub-' || lpad(i::text, 6, '0')";
  await pool.query(
    `INSERT INTO checkpoint_fencing_checkpoints (subscription_id, checkpoint, version) ` +
      `SELECT ${ids}, 'cp-' || i, $3::numeric FROM generate_series($1::integer, $2::integer - 1) AS i`,
    [from, to, version.toString()],
  );
  await pool.query(
    `INSERT INTO checkpoint_fencing_leases (subscription_id, token, owner, expires_at) ` +
      `SELECT ${ids}, $3::numeric, $4, now() + interval '1 hour' FROM generate_series($1::integer, $2::integer - 1) AS i`,
    [from, to, version.toString(), owner],
  );
  await pool.query('VACUUM ANALYZE checkpoint_fencing_checkpoints, checkpoint_fencing_leases');
}

/** Measures `inspect` in text and JSON at each size; the store grows from one size to the next. */
async function measure(
  backend: Backend,
  store: readonly string[],
  fill: (from: number, to: number) => Promise<void>,
): Promise<Map<string, InspectRun>> {
  const runs = new Map<string, InspectRun>();
  let filled = 0;
  for (const size of sizes) {
    await fill(filled, size);
    filled = size;
    for (const format of ['text', 'json'] as const) {
      const run = await inspect([...store, ...(format === 'json' ? ['--json'] : [])], size);
      runs.set(`${backend} ${format} ${size}`, run);
      console.log(
        `${backend.padEnd(8)} ${format.padEnd(4)} ${size.toLocaleString('en-US').padStart(7)} subscriptions: ` +
          `${run.seconds.toFixed(2).padStart(6)} s, peak RSS ${run.peakRssMiB.toFixed(1).padStart(6)} MiB`,
      );
    }
  }
  return runs;
}

async function benchRedis(): Promise<Map<string, InspectRun>> {
  const server = await startRedisServer();
  const client = new Redis({ host: server.host, port: server.port });
  try {
    return await measure('redis', ['--redis', `redis://${server.host}:${server.port}`], (from, to) =>
      fillRedis(client, from, to),
    );
  } finally {
    client.disconnect();
    await server.stop();
  }
}

async function benchPostgres(): Promise<Map<string, InspectRun>> {
  const server = await startPostgresServer();
  const pool = new pg.Pool({ connectionString: server.connectionString, max: 2 });
  // Idle connections see the server stop at the end; without a listener that error would end the process.
  pool.on('error', () => undefined);
  try {
    await new PostgresCheckpointStorage(pool).createTable();
    await new PostgresLeaseStrategy(pool).createTable();
    return await measure('postgres', ['--postgres', server.connectionString], (from, to) =>
      fillPostgres(pool, from, to),
    );
  } finally {
    await pool.end();
    await server.stop();
  }
}

/** One line a figure at the largest size: met or not, and how it compares with the smallest. */
function verdicts(runs: ReadonlyMap<string, InspectRun>): string[] {
  const smallest = Math.min(...sizes);
  const largest = Math.max(...sizes);
  const lines: string[] = [];
  for (const backend of ['redis', 'postgres'] as const) {
    for (const format of ['text', 'json'] as const) {
      const small = runs.get(`${backend} ${format} ${smallest}`);
      const large = runs.get(`${backend} ${format} ${largest}`);
      if (small === undefined || large === undefined) {
        continue;
      }
      const at = `${backend} ${format} at ${largest.toLocaleString('en-US')}`;
      const met = (ok: boolean): string => (ok ? 'target met' : 'target NOT met');
      lines.push(
        `${at}: peak RSS ${large.peakRssMiB.toFixed(1)} MiB (${smallest.toLocaleString('en-US')}: ${small.peakRssMiB.toFixed(1)} MiB), ` +
          `target <= ${targets.rssMiB} MiB: ${met(large.peakRssMiB <= targets.rssMiB)}, ` +
          `flat within ${targets.flatWithinMiB} MiB: ${met(large.peakRssMiB - small.peakRssMiB <= targets.flatWithinMiB)}`,
        `${at}: ${large.seconds.toFixed(2)} s, target <= ${targets.seconds[backend]} s: ${met(large.seconds <= targets.seconds[backend])}`,
      );
    }
  }
  return lines;
}

const loadBefore = loadavg()[0] ?? Number.NaN;
const runs = new Map([...(await benchRedis()), ...(await benchPostgres())]);
console.log(
  `inspect, ${sizes.map((size) => size.toLocaleString('en-US')).join(' and ')} healthy subscriptions, Node ${process.version}, ` +
    `load average ${loadBefore.toFixed(2)} before, ${(loadavg()[0] ?? Number.NaN).toFixed(2)} after`,
);
for (const line of verdicts(runs)) {
  console.log(`  ${line}`);
}
