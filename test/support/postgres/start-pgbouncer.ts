import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort, loopbackHost } from '../free-loopback-port.js';
import { cleanUpOnExit } from './clean-up-on-exit.js';
import { pgBouncerBinary } from './postgres-binaries.js';
import { handToPostgresOsUser, postgresOsUser, spawnIdentity } from './postgres-os-user.js';
import type { PostgresConnectionDetails } from './start-postgres-server.js';

/** A pgbouncer in front of a test server, started by {@link startPgBouncer}; connect to it like to the server's database. */
export interface PgBouncerProcess extends PostgresConnectionDetails {
  readonly poolMode: 'transaction' | 'session';
  /** The pgbouncer process's id: a benchmark reads its CPU time from /proc. */
  readonly pid: number;
  /** SIGTERM (immediate shutdown), wait for the exit, remove its temp dir. Idempotent. */
  stop(): Promise<void>;
}

/** Options of {@link startPgBouncer}. */
export interface StartPgBouncerOptions {
  /** `transaction` by default: a server connection is lent to a client for one transaction, then to another. */
  readonly poolMode?: 'transaction' | 'session';
  /** Server connections per user and database; 4 by default, fewer than the clients, so they are really shared. */
  readonly poolSize?: number;
  /** The loopback port to listen on (a restart keeps its predecessor's); a free one by default. */
  readonly port?: number;
}

const startupTimeoutMs = 15_000;

/**
 * Starts Debian's `pgbouncer` on a free loopback port in front of `server`, trusting the `postgres` user, in
 * transaction pooling mode unless told otherwise, as the same unprivileged user as the server when this process is
 * root (pgbouncer refuses root too). Resolves once it accepts connections; rejects with the install command when
 * pgbouncer is missing.
 */
export async function startPgBouncer(
  server: PostgresConnectionDetails,
  options: StartPgBouncerOptions = {},
): Promise<PgBouncerProcess> {
  const binary = pgBouncerBinary();
  const user = postgresOsUser();
  const poolMode = options.poolMode ?? 'transaction';
  const directory = mkdtempSync(join(tmpdir(), 'checkpoint-fencing-pgbouncer-'));
  handToPostgresOsUser(directory, user);
  const port = options.port ?? (await freeLoopbackPort());
  const userlist = join(directory, 'userlist.txt');
  writeFileSync(userlist, '"postgres" ""\n');
  const ini = join(directory, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${server.host} port=${server.port}`,
      '[pgbouncer]',
      `listen_addr = ${loopbackHost}`,
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${userlist}`,
      `pool_mode = ${poolMode}`,
      `default_pool_size = ${options.poolSize ?? 4}`,
      'max_client_conn = 500',
      // node-postgres sends these start-up parameters; pgbouncer refuses unknown ones unless told to ignore them.
      'ignore_startup_parameters = extra_float_digits,options',
      'server_reset_query =',
      `pidfile = ${join(directory, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const child = spawn(binary, [ini], { cwd: directory, stdio: ['ignore', 'pipe', 'pipe'], ...spawnIdentity(user) });
  const forget = cleanUpOnExit(() => {
    child.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
  });
  let log = '';
  const collect = (chunk: Buffer): void => {
    log = (log + chunk.toString()).slice(-4_000);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (!stopped) {
      stopped = true;
      forget();
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const forced = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(forced);
      }
      rmSync(directory, { recursive: true, force: true });
    }
  };
  try {
    await Promise.race([
      acceptsConnections(port),
      new Promise<never>((_, reject) => {
        child.once('error', reject);
        child.once('exit', (code, signal) => {
          reject(
            new Error(
              `pgbouncer exited (code ${code}, signal ${signal}) before accepting connections. Its log:\n${log}`,
            ),
          );
        });
      }),
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    host: loopbackHost,
    port,
    user: 'postgres',
    database: server.database,
    connectionString: `postgresql://postgres@${loopbackHost}:${port}/${server.database}`,
    poolMode,
    pid: child.pid ?? 0,
    stop,
  };
}

async function acceptsConnections(port: number): Promise<void> {
  const deadline = Date.now() + startupTimeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: loopbackHost, port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => {
        resolve(false);
      });
    });
    if (open) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`pgbouncer on port ${port} did not accept connections within ${startupTimeoutMs} ms.`);
}
