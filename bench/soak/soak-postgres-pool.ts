import pg from 'pg';

/**
 * A pool for one soak process. `statement_timeout` (like the Redis clients' command timeout) turns a statement stuck
 * behind a held row lock into an error instead of a hang; the connection timeout does the same while the server is
 * down. node-postgres never sends a statement again by itself, so a failed call is a plain unknown outcome. Errors of
 * idle connections (the harness restarts the server and terminates backends) are dropped: the pool replaces them.
 */
export function createSoakPool(connectionString: string): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: 4, statement_timeout: 1_000, connectionTimeoutMillis: 1_000 });
  pool.on('error', () => undefined);
  return pool;
}
