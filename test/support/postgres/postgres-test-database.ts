import pg from 'pg';
import type { PostgresConnectionDetails } from './start-postgres-server.js';

let tables = 0;

/** A table name no other case of this process uses, so each case starts from an empty table. */
export function freshTableName(prefix: string): string {
  tables += 1;
  return `${prefix}_${process.pid}_${tables}`;
}

/**
 * A `pg.Pool` on `server` that ignores errors of idle clients (a test that restarts the server or terminates
 * backends causes them on purpose; unhandled, they would crash the test process). Calls still reject as usual.
 */
export function testPool(server: PostgresConnectionDetails, options: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: server.connectionString, max: 16, ...options });
  pool.on('error', () => undefined);
  return pool;
}

/** How many rows `table` holds: "nothing was written" checked on the whole table, not on a guessed id. */
export async function rowCount(pool: pg.Pool, table: string): Promise<number> {
  const { rows } = await pool.query<{ count: string }>(`SELECT count(*)::text AS count FROM "${table}"`);
  return Number(rows[0]?.count);
}
