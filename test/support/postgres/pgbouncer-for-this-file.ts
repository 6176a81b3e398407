import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { testPool } from './postgres-test-database.js';
import { useSharedPostgres, type SharedPostgres } from './shared-postgres.js';
import { startPgBouncer, type PgBouncerProcess } from './start-pgbouncer.js';

/** The suite's database, the pgbouncer in front of it and two pools through it, for one test file's cases. */
export interface PgBouncerForThisFile {
  /** The suite's own database on the shared server, which the pgbouncer fronts. */
  readonly database: SharedPostgres;
  bouncer(): PgBouncerProcess;
  /** Two applications' pools of 8 on the same pgbouncer, ended after the file. */
  pool(index: 0 | 1): pg.Pool;
}

/**
 * Takes a database of the suite's own on the shared PostgreSQL server ({@link useSharedPostgres}) and starts a
 * pgbouncer in transaction mode in front of it in `beforeAll`, with three server connections for two pools of eight
 * clients, so consecutive statements of one client routinely run on different server sessions, as behind RDS Proxy;
 * ends the pools and the pgbouncer in `afterAll`. Register hooks that must run while the pools are still open
 * (shutting strategies down) after calling it: vitest runs `afterAll` hooks last-registered first.
 */
export function pgBouncerForThisFile(): PgBouncerForThisFile {
  const database = useSharedPostgres();
  let bouncer: PgBouncerProcess | undefined;
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    bouncer = await startPgBouncer(database, { poolMode: 'transaction', poolSize: 3 });
    pools.push(testPool(bouncer, { max: 8 }), testPool(bouncer, { max: 8 }));
  });
  afterAll(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.end()));
    await bouncer?.stop();
  });
  const missing = (): never => {
    throw new Error('The pgbouncer of this test file did not start; see the beforeAll error.');
  };
  return {
    database,
    bouncer: () => bouncer ?? missing(),
    pool: (index) => pools[index] ?? missing(),
  };
}
