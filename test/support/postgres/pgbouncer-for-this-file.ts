import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { testPool } from './postgres-test-database.js';
import { startPgBouncer, type PgBouncerProcess } from './start-pgbouncer.js';
import { startPostgresServer, type PostgresServerProcess } from './start-postgres-server.js';

/** The server, the pgbouncer in front of it and two pools through it, for one test file's cases. */
export interface PgBouncerForThisFile {
  server(): PostgresServerProcess;
  bouncer(): PgBouncerProcess;
  /** Two applications' pools of 8 on the same pgbouncer, ended after the file. */
  pool(index: 0 | 1): pg.Pool;
}

/**
 * Starts a throwaway PostgreSQL server and a pgbouncer in transaction mode in front of it in `beforeAll`, with three
 * server connections for two pools of eight clients, so consecutive statements of one client routinely run on
 * different server sessions, as behind RDS Proxy; ends everything in `afterAll`. Register hooks that must run while the
 * pools are still open (shutting strategies down) after calling it: vitest runs `afterAll` hooks last-registered first.
 */
export function pgBouncerForThisFile(): PgBouncerForThisFile {
  let server: PostgresServerProcess | undefined;
  let bouncer: PgBouncerProcess | undefined;
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    server = await startPostgresServer();
    bouncer = await startPgBouncer(server, { poolMode: 'transaction', poolSize: 3 });
    pools.push(testPool(bouncer, { max: 8 }), testPool(bouncer, { max: 8 }));
  });
  afterAll(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.end()));
    await bouncer?.stop();
    await server?.stop();
  });
  const missing = (): never => {
    throw new Error('The PostgreSQL server or pgbouncer of this test file did not start; see the beforeAll error.');
  };
  return {
    server: () => server ?? missing(),
    bouncer: () => bouncer ?? missing(),
    pool: (index) => pools[index] ?? missing(),
  };
}
