import type { TestProject } from 'vitest/node';
import { testProject } from '../projects/index.js';
import type {} from './shared-redis-context.js';
import { startRedisCluster, type RedisClusterProcess } from './start-redis-cluster.js';
import { startRedisServer, type RedisServerProcess } from './start-redis-server.js';

/** Databases of the shared standalone server: database 0 holds the allocation counter, each suite takes one more. */
export const sharedRedisDatabases = 1_000;

/** One server shared by every project that acquires it, stopped when the last of them releases it. */
class SharedServer<T extends { stop(): Promise<void> }> {
  #server: Promise<T> | undefined;
  #users = 0;

  constructor(private readonly start: () => Promise<T>) {}

  async acquire(): Promise<T> {
    const server = (this.#server ??= this.start());
    this.#users += 1;
    try {
      return await server;
    } catch (error) {
      this.#users -= 1;
      this.#server = undefined;
      throw error;
    }
  }

  async release(): Promise<void> {
    this.#users -= 1;
    const server = this.#server;
    if (this.#users === 0 && server !== undefined) {
      this.#server = undefined;
      await (await server).stop();
    }
  }
}

interface SharedServers {
  readonly redisServer: SharedServer<RedisServerProcess>;
  readonly redisCluster: SharedServer<RedisClusterProcess>;
}

/**
 * vitest global setup of the projects whose table entry lists shared servers: starts each one once per run (the redis
 * and the cluster project get the same standalone server), provides its address, and stops it after the last project
 * that uses it. Suites reach them through `useSharedRedis()` and `useSharedRedisCluster()`.
 */
export default async function startSharedRedis(project: TestProject): Promise<() => Promise<void>> {
  const kinds = testProject(project.name).sharedServers;
  const { redisServer, redisCluster } = sharedServers();
  const acquired: { release(): Promise<void> }[] = [];
  const releaseAll = async (): Promise<void> => {
    await Promise.all(acquired.splice(0).map((server) => server.release()));
  };
  const starting: Promise<void>[] = [];
  if (kinds.includes('redis-server')) {
    starting.push(
      redisServer.acquire().then(({ host, port }) => {
        acquired.push(redisServer);
        project.provide('sharedRedisServer', { host, port, databases: sharedRedisDatabases });
      }),
    );
  }
  if (kinds.includes('redis-cluster')) {
    starting.push(
      redisCluster.acquire().then(({ nodes }) => {
        acquired.push(redisCluster);
        project.provide('sharedRedisCluster', { nodes });
      }),
    );
  }
  // Settle both before giving up, so a server that did start is stopped with the rest.
  const failure = (await Promise.allSettled(starting)).find((outcome) => outcome.status === 'rejected');
  if (failure !== undefined) {
    await releaseAll();
    throw failure.reason;
  }
  return releaseAll;
}

// vitest (4.1) loads this file once per project, each time as a new module, so module state is not shared between
// projects; the servers live on globalThis so that every project of the run gets the same one of each.
function sharedServers(): SharedServers {
  const holder = globalThis as { checkpointFencingSharedRedis?: SharedServers };
  holder.checkpointFencingSharedRedis ??= {
    redisServer: new SharedServer(() => startRedisServer({ args: ['--databases', String(sharedRedisDatabases)] })),
    redisCluster: new SharedServer(startRedisCluster),
  };
  return holder.checkpointFencingSharedRedis;
}
