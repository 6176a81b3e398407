import type { TestProject } from 'vitest/node';
import type { StartedSharedServer } from '../projects/index.js';
import type {} from './shared-postgres-context.js';
import { startPostgresServer } from './start-postgres-server.js';

/**
 * Starts the run's shared PostgreSQL server, which provides `sharedPostgresServer`; see `useSharedPostgres()`. It
 * allows twice a private server's connections: up to three suites run on it at once, each with pools of its own.
 */
export async function startSharedPostgresServer(): Promise<StartedSharedServer> {
  const server = await startPostgresServer({ settings: { max_connections: '400' } });
  return {
    provideTo: (project: TestProject) => {
      project.provide('sharedPostgresServer', { host: server.host, port: server.port, user: server.user });
    },
    stop: () => server.stop(),
  };
}
