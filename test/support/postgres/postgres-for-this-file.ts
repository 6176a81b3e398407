import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startPostgresServer, type PostgresServerProcess } from './start-postgres-server.js';
import { testPool } from './postgres-test-database.js';

/** The server and pool of one test file, for its cases to call once `beforeAll` has run. */
export interface PostgresForThisFile {
  server(): PostgresServerProcess;
  /** A pool of 16 connections on the server, ended after the file. */
  pool(): pg.Pool;
}

/**
 * Starts a throwaway PostgreSQL server in `beforeAll` and a pool on it, and ends both in `afterAll`. The one place
 * where test files get their server, so a shared server for the whole run replaces this function alone.
 */
export function postgresForThisFile(): PostgresForThisFile {
  let server: PostgresServerProcess | undefined;
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    server = await startPostgresServer();
    pool = testPool(server);
  });
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });
  const missing = (): never => {
    throw new Error('The PostgreSQL server of this test file did not start; see the beforeAll error.');
  };
  return { server: () => server ?? missing(), pool: () => pool ?? missing() };
}
