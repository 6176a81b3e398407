import type { TestProject } from 'vitest/node';
import type { StartedSharedServer } from '../projects/index.js';
import type {} from './shared-redis-context.js';
import { startRedisCluster } from './start-redis-cluster.js';
import { startRedisServer } from './start-redis-server.js';

/** Databases of the shared standalone server: database 0 holds the allocation counter, each suite takes one more. */
const sharedRedisDatabases = 1_000;

/** Starts the run's shared standalone redis-server, which provides `sharedRedisServer`; see `useSharedRedis()`. */
export async function startSharedRedisServer(): Promise<StartedSharedServer> {
  const server = await startRedisServer({ args: ['--databases', String(sharedRedisDatabases)] });
  return {
    provideTo: (project: TestProject) => {
      project.provide('sharedRedisServer', { host: server.host, port: server.port, databases: sharedRedisDatabases });
    },
    stop: () => server.stop(),
  };
}

/** Starts the run's shared three-master Cluster, which provides `sharedRedisCluster`; see `useSharedRedisCluster()`. */
export async function startSharedRedisCluster(): Promise<StartedSharedServer> {
  const cluster = await startRedisCluster();
  return {
    provideTo: (project: TestProject) => {
      project.provide('sharedRedisCluster', { nodes: cluster.nodes });
    },
    stop: () => cluster.stop(),
  };
}
