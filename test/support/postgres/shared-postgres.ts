import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { testPool } from './postgres-test-database.js';
import type { SharedPostgresServerAddress } from './shared-postgres-context.js';
import type { PostgresConnectionDetails } from './start-postgres-server.js';

/**
 * A suite's own database on the run's shared PostgreSQL server; see {@link useSharedPostgres}. It is a set of
 * connection details, so `testPool(postgres)` and `startPgBouncer(postgres)` take it as they take a server.
 */
export interface SharedPostgres extends PostgresConnectionDetails {
  /** The suite's database, which no other suite uses. Created in `beforeAll`: read it in hooks and tests. */
  readonly database: string;
  /** `postgresql://postgres@127.0.0.1:<port>/<the suite's database>` */
  readonly connectionString: string;
  /** A pool of 16 connections on the suite's database, opened at the first call and ended after the suite. */
  pool(): pg.Pool;
  /** Another pool on the suite's database, ended after the suite: one a node, as separate processes each have their own. */
  newPool(options?: pg.PoolConfig): pg.Pool;
}

/**
 * Gives the calling suite a database of its own on the shared PostgreSQL server (`CREATE DATABASE … TEMPLATE
 * template0`), and drops it after the suite (`DROP DATABASE … WITH (FORCE)`, which also closes any connection the
 * suite left open). Call it at the top of a `*.postgres.test.ts` file (or of a `describe`): it registers the
 * `beforeAll` and the `afterAll`. Tables, schemas, advisory locks and `pg_stat_activity`'s `datname` are all per
 * database, so suites running at once never meet. A suite that restarts or kills the server, changes its settings
 * (`ALTER SYSTEM`), or terminates backends beyond its own database starts its own with `startPostgresServer`
 * instead (doc/testing.md).
 */
export function useSharedPostgres(): SharedPostgres {
  const address = inject('sharedPostgresServer');
  if (address === undefined) {
    throw new Error(
      "useSharedPostgres(): this test file's project has no shared PostgreSQL server. Name the file *.postgres.test.ts: " +
        "its project's global setup starts the shared servers (doc/testing.md). Running one file with vitest directly works the same way.",
    );
  }
  const { host, port, user } = address;
  let database: string | undefined;
  let pool: pg.Pool | undefined;
  const newPools: pg.Pool[] = [];
  const assigned = (): string => {
    if (database === undefined) {
      throw new Error(
        'useSharedPostgres(): the database is created in beforeAll; use it in a hook or a test, not while the file is being collected (or see the beforeAll error).',
      );
    }
    return database;
  };

  beforeAll(async () => {
    const name = `suite_${randomBytes(6).toString('hex')}`;
    // template0, not template1: nothing a suite or a user of the server could have added to template1 is copied.
    await administer(address, `CREATE DATABASE "${name}" TEMPLATE template0`);
    database = name;
  });
  afterAll(async () => {
    const created = database;
    try {
      await Promise.all([...newPools.splice(0), ...(pool === undefined ? [] : [pool])].map((ending) => ending.end()));
    } finally {
      pool = undefined;
      database = undefined;
      if (created !== undefined) {
        await administer(address, `DROP DATABASE "${created}" WITH (FORCE)`);
      }
    }
  });

  const namespace: SharedPostgres = {
    host,
    port,
    user,
    get database() {
      return assigned();
    },
    get connectionString() {
      return `postgresql://${user}@${host}:${port}/${assigned()}`;
    },
    pool: () => (pool ??= testPool(namespace)),
    newPool: (options) => {
      const created = testPool(namespace, options);
      newPools.push(created);
      return created;
    },
  };
  return namespace;
}

/** Runs one statement on the server's `postgres` database, on a connection of its own. */
async function administer({ host, port, user }: SharedPostgresServerAddress, statement: string): Promise<void> {
  const client = new pg.Client({ host, port, user, database: 'postgres' });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
