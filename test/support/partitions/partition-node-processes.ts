import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import {
  PostgresCheckpointStorage,
  PostgresLeaseStrategy,
  PostgresMembership,
  partitionOf,
} from '../../../runtime/index.js';
import { freshTableName } from '../postgres/index.js';
import { eventually } from '../leases/event-log.js';
import { buildRuntime, type BuiltRuntime } from '../processes/build-runtime.js';

/** The settings of one node process; every node of a test shares all but `nodeId` (and `partitions`, to refuse it). */
export interface PartitionNodeSettings {
  readonly port: number;
  readonly nodeId: string;
  readonly partitions: number;
  readonly leaseTimeMs: number;
  readonly memberTimeMs: number;
  readonly drainTimeoutMs: number;
  /** CPU each event costs its handler. */
  readonly handlerMs: number;
  /** How long an event of a `slow…` stream takes, ignoring its signal: a drain must time out on it. */
  readonly slowMs: number;
  /** False for a benchmark: the handler only burns its CPU, with no projection write and no record. */
  readonly record?: boolean;
  /** The subscription's `checkpointEvery`; every event by default. */
  readonly checkpointEvery?: { readonly events?: number; readonly ms?: number };
  /** The log, storage, leases, membership and projection in these tables on PostgreSQL (the records stay on Redis). */
  readonly postgres?: PartitionNodePostgres;
}

/** Where a node keeps its checkpoints, leases, members and projection on PostgreSQL. */
export interface PartitionNodePostgres {
  /** Through a pgbouncer in transaction mode, in the tests. */
  readonly connectionString: string;
  readonly tables: {
    /** `(position bigint PRIMARY KEY, event text NOT NULL)`: the nth event at position n. */
    readonly log: string;
    readonly checkpoints: string;
    readonly leases: string;
    readonly members: string;
    readonly projection: string;
  };
}

/** Creates fresh tables for the nodes' log, checkpoints, leases, members and projection through `admin`. */
export async function createPartitionNodeTables(admin: pg.Pool): Promise<PartitionNodePostgres['tables']> {
  const tables = {
    log: freshTableName('log'),
    checkpoints: freshTableName('checkpoints'),
    leases: freshTableName('leases'),
    members: freshTableName('members'),
    projection: freshTableName('projection'),
  };
  await admin.query(`CREATE TABLE "${tables.log}" (position bigint PRIMARY KEY, event text NOT NULL)`);
  await new PostgresCheckpointStorage(admin, { table: tables.checkpoints }).createTable();
  await new PostgresCheckpointStorage(admin, { table: tables.projection }).createTable();
  await new PostgresLeaseStrategy(admin, { table: tables.leases }).createTable();
  await new PostgresMembership(admin, { table: tables.members }).createTable();
  return tables;
}

// One node: a PartitionedSubscription named "orders" over the Redis list "log" (the nth item at position n), its
// checkpoints, leases, members and projection on Redis too, or in PostgreSQL tables when settings.postgres says so; events
// "<stream>:<n>" keyed by stream. The handler burns handlerMs of CPU, throws on a "poison…" stream, sleeps slowMs on
// a "slow…" one (printing "slow <partition> <position>"), and after SIGUSR2 stops itself (SIGSTOP) in its next event
// (printing "freezing <partition> <token>"); then writes its projection of the partition, stamped with the partition's token (a refusal
// prints "REFUSED <partition> <token>"), and records "<node> <pid> <partition> <position> <token> <acked ms> <sent ms>"
// in "handled".
// Prints "owns <partitions>" whenever they change, "started" once joined ("refused <message>" and exit 3 when the
// join is refused), and on SIGTERM "left <ms the shutdown took>".
const nodeScript = `
import { Redis } from 'ioredis';
import pg from 'pg';
import {
  CheckpointWriteCondition, CheckpointWriteConditionNotFulfilledError, PartitionedSubscription, PostgresCheckpointStorage,
  PostgresLeaseStrategy, PostgresMembership, RedisCheckpointStorage, RedisLeaseStrategy, RedisMembership,
} from './runtime/index.js';

const settings = JSON.parse(process.argv[2]);
const { port, nodeId, partitions, leaseTimeMs, memberTimeMs, drainTimeoutMs, handlerMs, slowMs, record = true, checkpointEvery, postgres } = settings;
const redis = new Redis({ host: '127.0.0.1', port, commandTimeout: 1000, maxRetriesPerRequest: 1 });
redis.on('error', () => undefined);
const say = (line) => process.stdout.write(line + '\\n');
const pool = postgres === undefined ? undefined : new pg.Pool({ connectionString: postgres.connectionString, max: 4 });
pool?.on('error', () => undefined);
const strategy = pool === undefined
  ? new RedisLeaseStrategy(redis, { leaseTimeMs, onError: () => undefined })
  : new PostgresLeaseStrategy(pool, { table: postgres.tables.leases, leaseTimeMs, onError: () => undefined });
const projection = pool === undefined
  ? new RedisCheckpointStorage(redis, { keyPrefix: 'projection:' })
  : new PostgresCheckpointStorage(pool, { table: postgres.tables.projection });
const storage = pool === undefined ? new RedisCheckpointStorage(redis) : new PostgresCheckpointStorage(pool, { table: postgres.tables.checkpoints });
const membership = pool === undefined
  ? new RedisMembership(redis, { memberTimeMs })
  : new PostgresMembership(pool, { table: postgres.tables.members, memberTimeMs });
async function* source(from, signal) {
  let next = from === undefined ? 0 : Number(from);
  while (!signal.aborted) {
    const batch = pool === undefined
      ? await redis.lrange('log', next, next + 199).catch(() => [])
      : await pool
          .query('SELECT event FROM "' + postgres.tables.log + '" WHERE position > $1 ORDER BY position LIMIT 200', [next])
          .then(({ rows }) => rows.map((row) => row.event), () => []);
    for (const event of batch) {
      next += 1;
      yield { position: String(next), event };
    }
    if (batch.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const subscription = new PartitionedSubscription({
  name: 'orders', partitions, partitionKey: (event) => event.split(':')[0], source,
  storage, strategy, membership,
  nodeId, drainTimeoutMs, ...(checkpointEvery === undefined ? {} : { checkpointEvery }),
  handler: async (event, position, context) => {
    const stream = event.split(':')[0];
    if (stream.startsWith('poison')) throw new Error('poison event ' + event);
    if (stream.startsWith('slow')) {
      say('slow ' + context.partition + ' ' + position);
      await new Promise((resolve) => setTimeout(resolve, slowMs));
    }
    if (freezeInNextEvent) {
      freezeInNextEvent = false;
      say('freezing ' + context.partition + ' ' + context.fencingToken);
      process.kill(process.pid, 'SIGSTOP');
    }
    const until = performance.now() + handlerMs;
    while (performance.now() < until) {}
    if (!record) return;
    const sentAt = Date.now();
    try {
      await projection.save('orders/' + context.partition, position, CheckpointWriteCondition.notOlderThan(context.fencingToken));
    } catch (error) {
      if (error instanceof CheckpointWriteConditionNotFulfilledError) say('REFUSED ' + context.partition + ' ' + context.fencingToken);
      throw error;
    }
    await redis.rpush('handled', [nodeId, process.pid, context.partition, position, context.fencingToken, Date.now(), sentAt].join(' '));
  },
  onError: (error, id) => say('error ' + id + ' ' + String(error?.message ?? error).split('\\n')[0]),
});
let owned;
let freezeInNextEvent = false;
process.on('SIGUSR2', () => {
  freezeInNextEvent = true;
});
const watch = setInterval(() => {
  const now = subscription.status().partitions.map((p) => p.partition).sort((a, b) => a - b).join(',');
  if (now !== owned) {
    owned = now;
    say('owns ' + (now === '' ? '-' : now));
  }
}, 20);
try {
  await subscription.start();
  say('started');
} catch (error) {
  say('refused ' + error.message);
  process.exit(3);
}
process.once('SIGTERM', async () => {
  const at = Date.now();
  await subscription.shutdown();
  say('left ' + (Date.now() - at));
  clearInterval(watch);
  await strategy.shutdown();
  await pool?.end();
  redis.disconnect();
  process.exit(0);
});
`;

/** A node process: what it printed, the partitions it last said it owns, and how it ended. */
export interface PartitionNode {
  readonly nodeId: string;
  readonly child: ChildProcess;
  readonly lines: string[];
  /** When each line arrived, `Date.now()`. */
  readonly arrivals: number[];
  owned: readonly number[];
  readonly exited: Promise<number | null>;
}

/** One handled event, as a node recorded it. */
export interface HandledEvent {
  readonly nodeId: string;
  readonly pid: number;
  readonly partition: number;
  readonly position: number;
  readonly token: bigint;
  /** When its projection write was accepted, by the node's clock (the machine's, shared by every node). */
  readonly at: number;
  /** When its projection write was sent. */
  readonly sentAt: number;
}

/** Node processes of one partitioned subscription on one redis-server, and what they recorded there. */
export class PartitionNodeProcesses {
  readonly #runtime: BuiltRuntime;
  readonly #nodes: PartitionNode[] = [];
  readonly #base: Omit<PartitionNodeSettings, 'nodeId'>;
  readonly redis: Redis;
  readonly #pool: pg.Pool | undefined;
  readonly #log: string[] = [];

  /** `compiledRuntime`: the runtime/ the nodes run; the package built from the current sources by default. */
  constructor(base: Omit<PartitionNodeSettings, 'nodeId'>, compiledRuntime?: string) {
    this.#runtime = buildRuntime(compiledRuntime);
    writeFileSync(join(this.#runtime.directory, 'partition-node.mjs'), nodeScript);
    this.#base = base;
    this.redis = new Redis({ host: '127.0.0.1', port: base.port, maxRetriesPerRequest: 1 });
    this.redis.on('error', () => undefined);
    if (base.postgres !== undefined) {
      this.#pool = new pg.Pool({ connectionString: base.postgres.connectionString, max: 2 });
      this.#pool.on('error', () => undefined);
    }
  }

  /** Starts a node; resolves once it printed "started" (or "refused …"). */
  async start(nodeId: string, overrides: Partial<PartitionNodeSettings> = {}): Promise<PartitionNode> {
    const settings: PartitionNodeSettings = { ...this.#base, nodeId, ...overrides };
    const child = spawn(process.execPath, ['partition-node.mjs', JSON.stringify(settings)], {
      cwd: this.#runtime.directory,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const node: PartitionNode = {
      nodeId,
      child,
      lines: [],
      arrivals: [],
      owned: [],
      exited: new Promise((resolve) => child.once('exit', resolve)),
    };
    this.#nodes.push(node);
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        node.lines.push(line);
        node.arrivals.push(Date.now());
        if (line.startsWith('owns ')) {
          node.owned = line === 'owns -' ? [] : line.slice(5).split(',').map(Number);
        }
      }
    });
    await eventually(
      `${nodeId} started`,
      () => node.lines.some((line) => line === 'started' || line.startsWith('refused ')),
      30_000,
    );
    return node;
  }

  /** Appends `count` events to the log (call it again only once it resolved or rejected), over `streams` streams (`s<k>`), or of the one stream `stream`. */
  async append(count: number, stream: string | number = 32): Promise<void> {
    const events = Array.from({ length: count }, (_, index) => {
      const n = this.#log.length + index + 1;
      return typeof stream === 'string' ? `${stream}:${n}` : `s${n % stream}:${n}`;
    });
    const first = this.#log.length + 1;
    await (this.#pool === undefined || this.#base.postgres === undefined
      ? this.redis.rpush('log', ...events)
      : this.#pool.query(
          `INSERT INTO "${this.#base.postgres.tables.log}" (position, event) SELECT $1::bigint + ordinality - 1, event FROM unnest($2::text[]) WITH ORDINALITY AS appended(event, ordinality)`,
          [first, events],
        ));
    // Only once written: an append that failed (its store restarting) is not in the log.
    this.#log.push(...events);
  }

  /** The events appended so far, the nth at position n (index n - 1). */
  log(): readonly string[] {
    return this.#log;
  }

  /** The events the nodes recorded as handled. */
  async handled(): Promise<HandledEvent[]> {
    return (await this.redis.lrange('handled', 0, -1)).map((line) => {
      const [nodeId = '', pid, partition, position, token, at, sentAt] = line.split(' ');
      return {
        nodeId,
        pid: Number(pid),
        partition: Number(partition),
        position: Number(position),
        token: BigInt(token ?? '-1'),
        at: Number(at),
        sentAt: Number(sentAt),
      };
    });
  }

  /** Each partition's stored checkpoint, as a number (0 when none). */
  async checkpoints(): Promise<number[]> {
    const ids = Array.from({ length: this.#base.partitions }, (_, partition) => `orders/${partition}`);
    if (this.#pool === undefined || this.#base.postgres === undefined) {
      return (await this.redis.mget(ids)).map((value) => Number(value ?? 0));
    }
    // One statement for all partitions: polled every 10 ms, a read per partition would load the server (and a
    // benchmark's figures) more than the nodes do.
    const { rows } = await this.#pool.query<{ subscription_id: string; checkpoint: string | null }>(
      `SELECT subscription_id, checkpoint FROM "${this.#base.postgres.tables.checkpoints}" WHERE subscription_id = ANY($1::text[])`,
      [ids],
    );
    const stored = new Map(rows.map((row) => [row.subscription_id, row.checkpoint]));
    return ids.map((id) => Number(stored.get(id) ?? 0));
  }

  /** Resolves once every partition's checkpoint is at or past its last event in the log but those `except` names. */
  async checkpointsReachLastEvents(
    except: (position: number) => boolean = () => false,
    timeoutMs = 20_000,
  ): Promise<void> {
    const log = this.log();
    const last = new Map<number, number>();
    log.forEach((event, index) => {
      if (!except(index + 1)) {
        last.set(this.partitionOf(event.slice(0, event.indexOf(':'))), index + 1);
      }
    });
    await eventually(
      'every partition checkpoints its last event',
      async () => {
        const checkpoints = await this.checkpoints();
        return [...last].every(([partition, position]) => (checkpoints[partition] ?? 0) >= position);
      },
      timeoutMs,
    );
  }

  /** The partition of each stream, as every node computes it. */
  partitionOf(stream: string): number {
    return partitionOf(stream, this.#base.partitions);
  }

  /** Whether `nodes` own every partition between them, no partition twice, each node at least one. */
  own(nodes: readonly PartitionNode[]): boolean {
    const owned = nodes.flatMap((node) => node.owned);
    return (
      nodes.every((node) => node.owned.length > 0) &&
      owned.length === this.#base.partitions &&
      new Set(owned).size === this.#base.partitions
    );
  }

  /** Kills every node and removes the build. */
  async close(): Promise<void> {
    for (const node of this.#nodes) {
      node.child.kill('SIGKILL');
    }
    await Promise.all(this.#nodes.map((node) => node.exited));
    this.redis.disconnect();
    await this.#pool?.end();
    this.#runtime.remove();
  }
}
