import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort, loopbackHost } from '../free-loopback-port.js';
import { childrenOf } from '../processes/process-table.js';
import { cleanUpOnExit } from './clean-up-on-exit.js';
import { postgresBinDirectory } from './postgres-binaries.js';
import { handToPostgresOsUser, postgresOsUser, spawnIdentity, type PostgresOsUser } from './postgres-os-user.js';

/** How to reach a database on a test server: a server of its own, a suite's database on the shared one, a pgbouncer. */
export interface PostgresConnectionDetails {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The bootstrap superuser (`initdb -U postgres`), trusted on loopback and the socket: no password. */
  readonly user: 'postgres';
  /** `postgres` on a server started by {@link startPostgresServer}; a suite's own on the shared server. */
  readonly database: string;
  /** `postgresql://postgres@127.0.0.1:<port>/<database>` */
  readonly connectionString: string;
}

/** A running throwaway PostgreSQL server; every method runs `pg_ctl` as the server's own user. */
export interface PostgresServerProcess extends PostgresConnectionDetails {
  /** The cluster directory (`initdb -D`); it survives `restart`, `kill` and `start`, `stop` removes it. */
  readonly dataDirectory: string;
  /** The Unix socket directory, inside the server's temp dir. */
  readonly socketDirectory: string;
  /** `/usr/lib/postgresql/<major>/bin`, the binaries this server runs. */
  readonly binDirectory: string;
  /** Final teardown: `pg_ctl stop -m fast` (immediate if that fails), then the temp dir is removed. Idempotent. */
  stop(): Promise<void>;
  /**
   * `pg_ctl restart -m <mode>`: `immediate` is the crash case (no shutdown checkpoint, WAL replay on start-up),
   * `fast` a clean shutdown. Same port, same data. Resolves once the server accepts connections again.
   */
  restart(mode?: 'fast' | 'immediate'): Promise<void>;
  /**
   * SIGKILL of the postmaster and every process it started: a crash with no cleanup; `start()` brings it back.
   * Resolves, once the postmaster is gone, to when the signals were sent (`process.hrtime.bigint()`).
   */
  kill(): Promise<bigint>;
  /** The postmaster's process id, from `postmaster.pid`: a new one after each `restart` or `start`. */
  postmasterPid(): number;
  /** `pg_ctl start` after `kill()` (or a stop by hand), on the same port and data. */
  start(): Promise<void>;
  /** `pg_ctl promote`: a standby ends recovery and takes writes, on a new timeline. Resolves once it does. */
  promote(): Promise<void>;
  /** The server log, for failure messages. */
  log(): string;
}

/** Options of {@link startPostgresServer}. */
export interface StartPostgresServerOptions {
  /** Extra server settings (`-c name=value`), e.g. `{ max_connections: '300' }`. */
  readonly settings?: Readonly<Record<string, string>>;
}

/** Options of {@link startPostgresStandby}. */
export interface StartPostgresStandbyOptions extends StartPostgresServerOptions {
  /** Its `application_name` on the primary: what `pg_stat_replication` and `synchronous_standby_names` call it. */
  readonly name?: string;
  /** Where it streams from: the primary's port by default, or a relay's in front of it. */
  readonly upstreamPort?: number;
}

const portAttempts = 5;
const startTimeoutSeconds = 60;
/** Stops the server in `baseDirectory` at once and removes the directory; what runs when the process exits. */
function stopAndRemoveNow(baseDirectory: string, binDirectory: string, user: PostgresOsUser | undefined): void {
  try {
    execFileSync(join(binDirectory, 'pg_ctl'), ['stop', '-D', join(baseDirectory, 'data'), '-m', 'immediate', '-w'], {
      stdio: 'ignore',
      timeout: 10_000,
      ...spawnIdentity(user),
    });
  } catch {
    // Not running, or already gone: the directory goes either way.
  }
  rmSync(baseDirectory, { recursive: true, force: true });
}

/**
 * Starts a real, throwaway PostgreSQL server: `initdb` into a fresh temp dir, `pg_ctl start` on a free loopback port
 * with its Unix socket in that dir, run as the unprivileged `checkpoint_fencing_pg` user when this process is root
 * (PostgreSQL refuses root), as the current user otherwise. Resolves once it accepts connections. Never skips:
 * rejects with the install command when the binaries are missing. Stopped and removed when the process exits or is
 * interrupted, even if the caller never calls `stop()`. A plain async function with no test-runner
 * dependency, so a shared global setup can call it as well as a test file, a soak or a benchmark.
 */
export async function startPostgresServer(options: StartPostgresServerOptions = {}): Promise<PostgresServerProcess> {
  return startServer(options.settings ?? {}, (server) => server.initdb());
}

/**
 * Starts a streaming standby of `primary` as {@link startPostgresServer} starts a server: its data from
 * `pg_basebackup -R` (a base backup, `standby.signal`), then `pg_ctl start` on a free port, streaming from
 * `options.upstreamPort` (the primary's own by default) as `options.name` (`standby` by default). Resolves once it
 * accepts connections; it streams soon after (`waitUntilStreaming` in the failover support waits for that).
 */
export async function startPostgresStandby(
  primary: PostgresConnectionDetails,
  options: StartPostgresStandbyOptions = {},
): Promise<PostgresServerProcess> {
  const upstream = `host=${primary.host} port=${options.upstreamPort ?? primary.port} user=${primary.user}`;
  return startServer(
    { ...options.settings, primary_conninfo: `${upstream} application_name=${options.name ?? 'standby'}` },
    (server) => server.baseBackup(primary),
  );
}

async function startServer(
  settings: Readonly<Record<string, string>>,
  createData: (server: RunningPostgresServer) => Promise<void>,
): Promise<PostgresServerProcess> {
  const binDirectory = postgresBinDirectory();
  const user = postgresOsUser();
  const baseDirectory = mkdtempSync(join(tmpdir(), 'checkpoint-fencing-pg-'));
  const forget = cleanUpOnExit(() => {
    stopAndRemoveNow(baseDirectory, binDirectory, user);
  });
  try {
    handToPostgresOsUser(baseDirectory, user);
    const dataDirectory = join(baseDirectory, 'data');
    const socketDirectory = join(baseDirectory, 'socket');
    mkdirSync(socketDirectory);
    handToPostgresOsUser(socketDirectory, user);
    const server = new RunningPostgresServer(baseDirectory, dataDirectory, socketDirectory, binDirectory, user, forget);
    await createData(server);
    await server.listen(settings);
    return server;
  } catch (error) {
    forget();
    stopAndRemoveNow(baseDirectory, binDirectory, user);
    throw error;
  }
}

class RunningPostgresServer implements PostgresServerProcess {
  readonly host = loopbackHost;
  readonly user = 'postgres';
  readonly database = 'postgres';
  #port = 0;
  #stopped = false;

  constructor(
    private readonly baseDirectory: string,
    readonly dataDirectory: string,
    readonly socketDirectory: string,
    readonly binDirectory: string,
    private readonly osUser: PostgresOsUser | undefined,
    private readonly forgetCleanup: () => void,
  ) {}

  get port(): number {
    return this.#port;
  }

  get connectionString(): string {
    return `postgresql://postgres@${this.host}:${this.#port}/postgres`;
  }

  async initdb(): Promise<void> {
    await this.#run('initdb', [
      '-D',
      this.dataDirectory,
      '-U',
      'postgres',
      '--auth=trust',
      '--encoding=UTF8',
      '--locale=C',
      '--no-sync',
    ]);
  }

  /** The data directory as a base backup of `primary`, with `standby.signal` (`-R`), as a standby's. */
  async baseBackup(primary: PostgresConnectionDetails): Promise<void> {
    await this.#run('pg_basebackup', [
      '-D',
      this.dataDirectory,
      '-h',
      primary.host,
      '-p',
      String(primary.port),
      '-U',
      primary.user,
      '-R',
      '--checkpoint=fast',
      '--no-sync',
    ]);
  }

  /** `pg_ctl start` with `settings` on a free loopback port, trying another port when one is taken meanwhile. */
  async listen(settings: Readonly<Record<string, string>>): Promise<void> {
    let lastError: unknown;
    for (let attempt = 0; attempt < portAttempts; attempt += 1) {
      this.#port = await freeLoopbackPort();
      const serverOptions = {
        port: String(this.#port),
        listen_addresses: loopbackHost,
        unix_socket_directories: this.socketDirectory,
        max_connections: '200',
        ...settings,
      };
      try {
        await this.#pgCtl([
          'start',
          '-w',
          '-t',
          String(startTimeoutSeconds),
          '-l',
          this.#logFile,
          '-o',
          Object.entries(serverOptions)
            .map(([name, value]) => `-c ${name}='${value}'`)
            .join(' '),
        ]);
        return;
      } catch (error) {
        // Another process may take the port between our probe and the server's bind; try a new one.
        if (!/Address already in use|could not create any TCP\/IP sockets/u.test(this.log())) {
          throw error;
        }
        lastError = error;
      }
    }
    throw lastError;
  }

  async stop(): Promise<void> {
    if (this.#stopped) {
      return;
    }
    this.#stopped = true;
    try {
      await this.#pgCtl(['stop', '-w', '-m', 'fast', '-t', '30']);
    } catch {
      await this.#pgCtl(['stop', '-w', '-m', 'immediate']).catch(() => undefined);
    }
    this.forgetCleanup();
    rmSync(this.baseDirectory, { recursive: true, force: true });
  }

  async restart(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.#pgCtl(['restart', '-w', '-m', mode, '-t', String(startTimeoutSeconds), '-l', this.#logFile]);
  }

  postmasterPid(): number {
    return Number(readFileSync(join(this.dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0]?.trim());
  }

  async kill(): Promise<bigint> {
    const pid = this.postmasterPid();
    // A crash takes every process down at once: a backend outlives a postmaster killed alone until it notices, and
    // meanwhile answers its client from the dead server's data (a failover soak read a write the standby never had).
    // The postmaster first, so that it starts no process in place of one killed before it.
    const processes = [pid, ...childrenOf(pid)];
    const killedAt = process.hrtime.bigint();
    for (const target of processes) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    // Until the dead postmaster is reaped, its pid still answers signals and a new start would refuse to run.
    const deadline = Date.now() + 30_000;
    while (processExists(pid) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return killedAt;
  }

  async start(): Promise<void> {
    // The options of the last start are in postmaster.opts, and pg_ctl start without -o does not read them.
    const opts = readFileSync(join(this.dataDirectory, 'postmaster.opts'), 'utf8');
    const settings = [...opts.matchAll(/"-c" "([^"]*)"/gu)].map(([, setting]) => `-c ${setting ?? ''}`).join(' ');
    await this.#pgCtl(['start', '-w', '-t', String(startTimeoutSeconds), '-l', this.#logFile, '-o', settings]);
  }

  async promote(): Promise<void> {
    await this.#pgCtl(['promote', '-w', '-t', String(startTimeoutSeconds)]);
  }

  log(): string {
    try {
      return readFileSync(this.#logFile, 'utf8').slice(-4_000);
    } catch {
      return '(no server log)';
    }
  }

  get #logFile(): string {
    return join(this.baseDirectory, 'postgres.log');
  }

  async #pgCtl(args: readonly string[], withDataDirectory = true): Promise<void> {
    await this.#run('pg_ctl', withDataDirectory ? [...args, '-D', this.dataDirectory] : args);
  }

  #run(binary: string, args: readonly string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        join(this.binDirectory, binary),
        args,
        { cwd: this.baseDirectory, timeout: 120_000, ...spawnIdentity(this.osUser) },
        (error, stdout, stderr) => {
          if (error === null) {
            resolve(stdout);
            return;
          }
          reject(
            new Error(
              `${binary} ${args.join(' ')} failed (${error.message.split('\n')[0] ?? ''}).\n${stderr}${stdout}\nServer log:\n${this.log()}`,
              { cause: error },
            ),
          );
        },
      );
    });
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
