import { randomBytes } from 'node:crypto';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { afterAll, beforeAll, inject } from 'vitest';
import type {} from './shared-redis-context.js';

/** A suite's own database on the run's shared standalone redis-server; see {@link useSharedRedis}. */
export interface SharedRedis {
  readonly host: string;
  readonly port: number;
  /** The suite's database, which no other suite of the run uses. Assigned in `beforeAll`: read it in hooks and tests. */
  readonly database: number;
  /** A new client on the suite's database, disconnected after the suite. `db` in `options` is ignored. */
  connect(options?: RedisOptions): Redis;
  /** Empties the suite's database (`FLUSHDB`), and only it. */
  flush(): Promise<void>;
}

/** A suite's own key prefix on the run's shared three-master Cluster; see {@link useSharedRedisCluster}. */
export interface SharedRedisCluster {
  /** The masters, for a client of another library or version (ioredis 6). */
  readonly nodes: readonly { readonly host: string; readonly port: number }[];
  /** Every key the suite writes starts with it, and no other suite's key does. Free of `{` and `}`. */
  readonly keyPrefix: string;
  /** A prefix under {@link keyPrefix} that no other call returned: an empty keyspace for one case. */
  freshPrefix(): string;
  /** A new Cluster client, disconnected after the suite. */
  connect(options?: ClusterOptions): Cluster;
  /** Deletes every key under {@link keyPrefix}, on every master. */
  flush(): Promise<void>;
}

const databaseCounterKey = 'checkpoint-fencing:test:last-database';

/**
 * Gives the calling suite a database of its own on the shared standalone redis-server, and empties it after the suite.
 * Call it at the top of a `*.redis.test.ts` or `*.cluster.test.ts` file (or of a `describe`): it registers the
 * `beforeAll` that takes a database and the `afterAll` that flushes it and disconnects the suite's clients.
 * A suite that kills, pauses, restarts, fails over, reconfigures the server, or runs `FLUSHALL`, `SCRIPT FLUSH` or
 * `CONFIG SET`, starts its own server with `startRedisServer` instead (doc/testing.md).
 */
export function useSharedRedis(): SharedRedis {
  const address = inject('sharedRedisServer');
  if (address === undefined) {
    throw new Error(notProvided('useSharedRedis()', 'shared redis-server', '*.redis.test.ts or *.cluster.test.ts'));
  }
  const { host, port } = address;
  let database: number | undefined;
  const clients: Redis[] = [];
  const assigned = (): number => {
    if (database === undefined) {
      throw new Error(
        'useSharedRedis(): the database is assigned in beforeAll; use the namespace in a hook or a test, not while the file is being collected.',
      );
    }
    return database;
  };
  const connect = (options: RedisOptions = {}): Redis => {
    const client = new Redis({ ...options, host, port, db: assigned() });
    clients.push(client);
    return client;
  };
  let admin: Redis | undefined;
  const flush = async (): Promise<void> => {
    admin ??= connect();
    await admin.flushdb();
  };

  beforeAll(async () => {
    const allocator = new Redis({ host, port, db: 0 });
    try {
      const taken = await allocator.incr(databaseCounterKey);
      if (taken >= address.databases) {
        throw new Error(
          `useSharedRedis(): the shared redis-server has ${address.databases} databases and this is suite number ${taken} of the run; ` +
            'raise sharedRedisDatabases in test/support/redis/shared-redis-global-setup.ts.',
        );
      }
      database = taken;
    } finally {
      allocator.disconnect();
    }
  });
  afterSuite(clients, async () => {
    if (database !== undefined) {
      await flush();
    }
  });

  return {
    host,
    port,
    get database() {
      return assigned();
    },
    connect,
    flush,
  };
}

/**
 * Gives the calling suite a key prefix of its own on the shared three-master Redis Cluster, and deletes its keys after
 * the suite. Call it at the top of a `*.cluster.test.ts` file (or of a `describe`). Every key the suite writes must
 * start with `keyPrefix` (give it to the storage or strategy under test), so suites running beside it never meet.
 * A suite that needs an empty Cluster, or kills, pauses, fails over or reconfigures a node, or runs `FLUSHALL` or
 * `SCRIPT FLUSH`, starts its own with `startRedisCluster` instead (doc/testing.md).
 */
export function useSharedRedisCluster(): SharedRedisCluster {
  const address = inject('sharedRedisCluster');
  if (address === undefined) {
    throw new Error(notProvided('useSharedRedisCluster()', 'shared Redis Cluster', '*.cluster.test.ts'));
  }
  const nodes = address.nodes.map(({ host, port }) => ({ host, port }));
  const keyPrefix = `suite-${randomBytes(6).toString('hex')}:`;
  let prefixes = 0;
  const clients: Cluster[] = [];
  const flush = async (): Promise<void> => {
    // Straight to each master: its keyspace holds exactly the keys of the slots it owns.
    await Promise.all(
      nodes.map(async ({ host, port }) => {
        const node = new Redis({ host, port });
        try {
          for await (const keys of node.scanStream({ match: `${keyPrefix}*`, count: 1_000 }) as AsyncIterable<
            string[]
          >) {
            // One UNLINK a key: a multi-key UNLINK across slots is a CROSSSLOT error even on a single node.
            await Promise.all(keys.map((key) => node.unlink(key)));
          }
        } finally {
          node.disconnect();
        }
      }),
    );
  };

  afterSuite(clients, flush);

  return {
    nodes,
    keyPrefix,
    freshPrefix: () => {
      prefixes += 1;
      return `${keyPrefix}${prefixes}:`;
    },
    connect: (options = {}) => {
      const client = new Cluster(nodes, options);
      clients.push(client);
      return client;
    },
    flush,
  };
}

/** After the suite: `cleanUp`, then every client the suite made is disconnected, even when cleaning up failed. */
function afterSuite(clients: { disconnect(): void }[], cleanUp: () => Promise<void>): void {
  afterAll(async () => {
    try {
      await cleanUp();
    } finally {
      for (const client of clients.splice(0)) {
        client.disconnect();
      }
    }
  });
}

function notProvided(api: string, server: string, fileNames: string): string {
  return (
    `${api}: this test file's project has no ${server}. Name the file ${fileNames}: its project's global setup ` +
    'starts the shared servers (doc/testing.md). Running one file with vitest directly works the same way.'
  );
}
