import { Socket } from 'node:net';
import type * as Pg from 'pg';
import type { PostgresAddress } from '../connection-url.js';
import { withDeadline } from '../deadline.js';
import { postgresFailure } from './postgres-failure.js';

/** node-postgres as the user's project has it. */
export type PgModule = typeof Pg;

/** A connected client and the way to close it even when the server stopped answering. */
export interface PostgresConnection {
  readonly client: Pg.Client;
  close(): Promise<void>;
}

/** How long a goodbye to the server may take before the socket is closed under it. */
const closeTimeoutMs = 1_000;

/**
 * Connects one client to `address` and nowhere else (ADR 1002): host, port and database come from the URL, never
 * from `PGHOST`, `PGPORT`, `PGDATABASE` or `PGSSLMODE`; only the user name and password may come from libpq's usual
 * places (`PGUSER`, `PGPASSWORD`, `~/.pgpass`) when the URL leaves them out. Every statement times out after
 * `timeoutMs`, on the server and in the client.
 * @throws OperatorError with one line saying what failed.
 */
export async function connectPostgres(
  pg: PgModule,
  address: PostgresAddress,
  timeoutMs: number,
): Promise<PostgresConnection> {
  // Our own socket, so that closing never waits on a server that stopped answering.
  const socket = new Socket();
  const client = new pg.Client({
    host: address.host,
    port: address.port,
    database: address.database,
    ...(address.user === undefined ? {} : { user: address.user }),
    ...(address.password === undefined ? {} : { password: address.password }),
    ssl: address.sslmode === 'disable' ? false : { rejectUnauthorized: address.sslmode === 'verify-full' },
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    statement_timeout: timeoutMs,
    application_name: 'checkpoint-fencing-operator',
    stream: () => socket,
  });
  let reason: unknown;
  client.on('error', (error: unknown) => {
    reason ??= error;
  });
  const close = async (): Promise<void> => {
    await withDeadline(client.end(), closeTimeoutMs, () => new Error('closed')).catch(() => undefined);
    socket.destroy();
  };
  try {
    await withDeadline(client.connect(), timeoutMs, () => new Error('connection timed out'));
  } catch (error) {
    socket.destroy();
    throw postgresFailure(reason ?? error, address.display, timeoutMs);
  }
  return { client, close };
}
