import { Redis } from 'ioredis';
import {
  createPartitionNodeTables,
  type PartitionNodeSettings,
} from '../test/support/partitions/partition-node-processes.js';
import { startPgBouncer, startPostgresServer, testPool } from '../test/support/postgres/index.js';
import { cpuMs } from '../test/support/processes/process-table.js';
import { startRedisServer } from '../test/support/redis/index.js';

// The stores `npm run bench:partitions` runs its node processes on: what each gives the nodes, what its server
// processes spend, and what it counts of the nodes' calls.

/** Calls a server counted so far, by what they were for. */
export interface CallCounts {
  /** Round trips of the leases and the membership (and checkpoints), by script or table. */
  readonly coordination: ReadonlyMap<string, number>;
  /** Round trips of the nodes' sources polling the shared log. */
  readonly polling: number;
  /** Work inside those round trips: the commands Redis scripts ran, by command; none on PostgreSQL. */
  readonly inside: ReadonlyMap<string, number>;
}

/** One run's store, fresh: the nodes' settings for it, its servers' CPU time and call counts so far. */
export interface BenchStore {
  readonly settings: Pick<PartitionNodeSettings, 'port' | 'postgres'>;
  /** CPU milliseconds each server (its process and its children) has used so far, by server. */
  serverCpuMs(): Promise<Record<string, number>>;
  calls(): Promise<CallCounts>;
  stop(): Promise<void>;
}

/** A backend of the bench: a fresh store for each run, and what its counts are. */
export interface BenchBackend {
  readonly name: 'redis' | 'postgres';
  /** What {@link BenchStore.calls} counts, for the printout. */
  readonly counted: string;
  fresh(): Promise<BenchStore>;
  close(): Promise<void>;
}

/** A redis-server for each run; the nodes keep everything on it. */
export function redisBackend(): BenchBackend {
  return {
    name: 'redis',
    counted:
      'Redis: INFO COMMANDSTATS calls; round trips are the lease and membership scripts (EVAL/EVALSHA), polling is ' +
      "LRANGE on the log, the rest are the commands the scripts ran (work inside a round trip, growing with a node's leases)",
    fresh: async () => {
      const server = await startRedisServer();
      const redis = new Redis({ host: server.host, port: server.port, maxRetriesPerRequest: 1 });
      redis.on('error', () => undefined);
      const pid = Number(/^process_id:(\d+)/mu.exec(await redis.info('server'))?.[1]);
      return {
        settings: { port: server.port },
        serverCpuMs: () => Promise.resolve({ 'redis-server': cpuMs(pid) }),
        calls: async () => {
          const calls = [...(await redis.info('commandstats')).matchAll(/^cmdstat_(\w+):calls=(\d+)/gmu)]
            .map(([, name = '', count]) => [name, Number(count)] as const)
            .filter(([name]) => name !== 'info');
          const scripts = (name: string): boolean => name === 'eval' || name === 'evalsha';
          return {
            coordination: new Map(calls.filter(([name]) => scripts(name))),
            polling: calls.find(([name]) => name === 'lrange')?.[1] ?? 0,
            inside: new Map(calls.filter(([name]) => !scripts(name) && name !== 'lrange')),
          };
        },
        stop: async () => {
          redis.disconnect();
          await server.stop();
        },
      };
    },
    close: () => Promise.resolve(),
  };
}

/**
 * One PostgreSQL server (with pg_stat_statements) and a pgbouncer in transaction mode in front of it, as the
 * partitioned-process tests use them; fresh tables for each run. The nodes also need a redis-server, idle here.
 */
export async function postgresBackend(): Promise<BenchBackend> {
  const server = await startPostgresServer({ settings: { shared_preload_libraries: 'pg_stat_statements' } });
  const bouncer = await startPgBouncer(server, { poolMode: 'transaction', poolSize: 6 });
  const admin = testPool(server, { max: 2 });
  await admin.query('CREATE EXTENSION pg_stat_statements');
  return {
    name: 'postgres',
    counted:
      'PostgreSQL: pg_stat_statements calls (statements the server ran, each a round trip through pgbouncer), by the ' +
      'table they touch; polling is the SELECT on the log',
    fresh: async () => {
      const tables = await createPartitionNodeTables(admin);
      const redisServer = await startRedisServer();
      return {
        settings: { port: redisServer.port, postgres: { connectionString: bouncer.connectionString, tables } },
        serverCpuMs: () => Promise.resolve({ postgres: cpuMs(server.postmasterPid()), pgbouncer: cpuMs(bouncer.pid) }),
        calls: async () => {
          const { rows } = await admin.query<{ query: string; calls: string }>(
            "SELECT query, calls::text AS calls FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'",
          );
          const coordination = new Map<string, number>();
          let polling = 0;
          for (const { query, calls } of rows) {
            const table = Object.entries(tables).find(([, name]) => query.includes(name))?.[0];
            if (table === 'log') {
              polling += Number(calls);
            } else {
              // Statements on no table of this run (none while only its nodes run) are counted, not hidden.
              const kind = table ?? 'other';
              coordination.set(kind, (coordination.get(kind) ?? 0) + Number(calls));
            }
          }
          return { coordination, polling, inside: new Map() };
        },
        stop: () => redisServer.stop(),
      };
    },
    close: async () => {
      await admin.end();
      await bouncer.stop();
      await server.stop();
    },
  };
}
