import type { TestProject } from 'vitest/node';
import { startSharedPostgresServer } from '../postgres/index.js';
import { startSharedRedisCluster, startSharedRedisServer } from '../redis/index.js';
import { SharedServer, type StartedSharedServer } from './shared-server.js';
import { testProject, type SharedServerKind } from './test-projects.js';

/** How each kind of shared server starts; what it provides is its own business (its `provideTo`). */
const starters: Readonly<Record<SharedServerKind, () => Promise<StartedSharedServer>>> = {
  'redis-server': startSharedRedisServer,
  'redis-cluster': startSharedRedisCluster,
  'postgres-server': startSharedPostgresServer,
};

/**
 * vitest global setup of the projects whose table entry lists shared servers: starts each server once per run (the
 * redis and the cluster project get the same standalone redis-server), provides its address to the project, and stops
 * it after the last project that uses it. vitest runs it only for projects with files in the run, so a run without
 * a `*.postgres.test.ts` file starts no PostgreSQL. Suites reach the servers through `useSharedRedis()`,
 * `useSharedRedisCluster()` and `useSharedPostgres()`.
 */
export default async function startSharedServers(project: TestProject): Promise<() => Promise<void>> {
  const acquired: SharedServer[] = [];
  const releaseAll = async (): Promise<void> => {
    await Promise.all(acquired.splice(0).map((server) => server.release()));
  };
  const starting = testProject(project.name).sharedServers.map(async (kind) => {
    const shared = sharedServer(kind);
    const server = await shared.acquire();
    acquired.push(shared);
    server.provideTo(project);
  });
  // Settle every start before giving up, so a server that did start is stopped with the rest.
  const failure = (await Promise.allSettled(starting)).find((outcome) => outcome.status === 'rejected');
  if (failure !== undefined) {
    await releaseAll();
    throw failure.reason;
  }
  return releaseAll;
}

// vitest (4.1) loads this file once per project, each time as a new module, so module state is not shared between
// projects; the servers live on globalThis so that every project of the run gets the same one of each kind.
function sharedServer(kind: SharedServerKind): SharedServer {
  const holder = globalThis as { checkpointFencingSharedServers?: Map<SharedServerKind, SharedServer> };
  const servers = (holder.checkpointFencingSharedServers ??= new Map());
  let server = servers.get(kind);
  if (server === undefined) {
    server = new SharedServer(starters[kind]);
    servers.set(kind, server);
  }
  return server;
}
