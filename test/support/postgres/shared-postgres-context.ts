import type { PostgresConnectionDetails } from './start-postgres-server.js';

/** Where the run's shared PostgreSQL server listens, and the superuser that creates and drops suites' databases. */
export type SharedPostgresServerAddress = Pick<PostgresConnectionDetails, 'host' | 'port' | 'user'>;

// What the shared-server global setup provides to the test files of the postgres project; absent in other projects.
declare module 'vitest' {
  export interface ProvidedContext {
    sharedPostgresServer?: SharedPostgresServerAddress;
  }
}
