import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bindableLoopbackPort, freeLoopbackPort, loopbackHost } from '../free-loopback-port.js';

/** A redis-server child process on a free loopback port, started by {@link startRedisServer}. */
export interface RedisServerProcess {
  readonly host: '127.0.0.1';
  readonly port: number;
  /**
   * The server's working directory (`--dir`): AOF/RDB files and `nodes.conf` live here. It survives `kill()` and
   * `restart()`, so a restarted server reloads whatever it persisted; `stop()` removes it.
   */
  readonly dataDir: string;
  /** Final teardown: SIGTERM, wait for the exit, remove `dataDir`. Idempotent; safe after `kill()`. */
  stop(): Promise<void>;
  /** SIGKILL, the crash case: nothing is flushed on the way down, `dataDir` is kept for `restart()`. */
  kill(): void;
  /**
   * Stops the server if it runs (SIGTERM, wait), then starts it again on the same port, with the same arguments and
   * the same `dataDir`, and waits until it answers PING. Data survives only if the caller's args persist it
   * (e.g. `--appendonly yes --appendfsync always`); the defaults persist nothing. `extraArgs` go after the original
   * arguments for this start only (a killed master restarted as a replica: `['--replicaof', host, port]`).
   */
  restart(extraArgs?: readonly string[]): Promise<void>;
  /** SIGSTOP: the process keeps its port but answers nothing, like a server stuck in a long pause. */
  pause(): void;
  /** SIGCONT after {@link RedisServerProcess.pause}. */
  resume(): void;
}

/** Options of {@link startRedisServer}. */
export interface StartRedisServerOptions {
  /** Extra redis-server arguments appended after the defaults, e.g. `['--appendonly', 'yes']`; later ones win. */
  readonly args?: readonly string[];
  /** Also require port + 10000 (the Cluster bus port) to be free; {@link startRedisCluster} sets it. */
  readonly reserveClusterBusPort?: boolean;
  /**
   * A configuration file's text, written to `dataDir` and passed as the first argument, before every other one: a
   * Sentinel needs a file it can rewrite (`args: ['--sentinel']`).
   */
  readonly configText?: string;
}

const host = loopbackHost;
const startupTimeoutMs = 10_000;
const portAttempts = 5;
/** Child processes and temp dirs still alive, cleaned up when the test process exits, even after a failed afterAll. */
const liveChildren = new Set<ChildProcess>();
const liveDataDirs = new Set<string>();

process.once('exit', () => {
  for (const child of liveChildren) {
    child.kill('SIGKILL');
  }
  for (const dir of liveDataDirs) {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * Starts a real `redis-server` on a free loopback port with `--save '' --appendonly no` plus `options.args`, in a
 * fresh temp `dataDir`, and resolves once it answers PING. Rejects (never skips) when the binary is missing.
 * Call `stop()` in `afterAll`; a server the test forgot is still killed when the test process exits.
 */
export async function startRedisServer(options: StartRedisServerOptions = {}): Promise<RedisServerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'checkpoint-fencing-redis-'));
  liveDataDirs.add(dataDir);
  const configFile = join(dataDir, 'redis.conf');
  if (options.configText !== undefined) {
    writeFileSync(configFile, options.configText);
  }
  let lastError: unknown;
  for (let attempt = 0; attempt < portAttempts; attempt += 1) {
    const port = await freePort(options.reserveClusterBusPort === true);
    const args = [
      ...(options.configText === undefined ? [] : [configFile]),
      '--port',
      String(port),
      '--bind',
      host,
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dataDir,
      ...(options.args ?? []),
    ];
    try {
      const child = await spawnAndWait(args, port);
      return new RunningRedisServer(port, dataDir, args, child);
    } catch (error) {
      // Another process may take the port between our probe and redis-server's bind; try a new one.
      if (!(error instanceof PortTakenError)) {
        rmSync(dataDir, { recursive: true, force: true });
        liveDataDirs.delete(dataDir);
        throw error;
      }
      lastError = error;
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
  liveDataDirs.delete(dataDir);
  throw lastError;
}

class RunningRedisServer implements RedisServerProcess {
  readonly host = host;
  #child: ChildProcess | undefined;

  constructor(
    readonly port: number,
    readonly dataDir: string,
    private readonly args: readonly string[],
    child: ChildProcess,
  ) {
    this.#child = child;
  }

  async stop(): Promise<void> {
    await this.#terminate();
    rmSync(this.dataDir, { recursive: true, force: true });
    liveDataDirs.delete(this.dataDir);
  }

  kill(): void {
    this.#child?.kill('SIGKILL');
    this.#child = undefined;
  }

  async restart(extraArgs: readonly string[] = []): Promise<void> {
    await this.#terminate();
    this.#child = await spawnAndWait([...this.args, ...extraArgs], this.port);
  }

  pause(): void {
    this.#child?.kill('SIGSTOP');
  }

  resume(): void {
    this.#child?.kill('SIGCONT');
  }

  async #terminate(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) {
      return;
    }
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => {
        resolve();
      });
    });
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    const forced = setTimeout(() => {
      child.kill('SIGKILL');
    }, 5_000);
    await exited;
    clearTimeout(forced);
  }
}

class PortTakenError extends Error {}

async function spawnAndWait(args: readonly string[], port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  liveChildren.add(child);
  let log = '';
  const collect = (chunk: Buffer): void => {
    log = (log + chunk.toString()).slice(-4_000);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'ENOENT'
          ? new Error(
              'redis-server was not found on PATH, and the Redis integration tests need a real server. ' +
                'Install it with `apt-get install redis-server` (Debian/Ubuntu; `npm test` does this itself when run as root), then run the tests again.',
            )
          : error,
      );
    });
    child.once('exit', (code, signal) => {
      const reason = `redis-server on port ${port} exited (code ${code}, signal ${signal}) before answering PING`;
      reject(
        /Address already in use/i.test(log)
          ? new PortTakenError(`${reason}: port taken.`)
          : new Error(`${reason}. Its log:\n${log}`),
      );
    });
  });
  child.once('exit', () => liveChildren.delete(child));
  try {
    await Promise.race([exited, waitForPong(port)]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  exited.catch(() => undefined);
  return child;
}

async function waitForPong(port: number): Promise<void> {
  const deadline = Date.now() + startupTimeoutMs;
  while (Date.now() < deadline) {
    if (await answersPing(port)) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
  throw new Error(`redis-server on port ${port} did not answer PING within ${startupTimeoutMs} ms.`);
}

/** One raw RESP PING, so the harness needs no client library and leaves no reconnecting client behind. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let reply = '';
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => {
      done(false);
    });
    socket.once('error', () => {
      done(false);
    });
    socket.once('connect', () => {
      socket.write('*1\r\n$4\r\nPING\r\n');
    });
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) {
        done(reply.startsWith('+PONG'));
      }
    });
  });
}

/** A loopback port that is free now (and, for a Cluster node, whose bus port + 10000 is free too). */
async function freePort(withBusPort: boolean): Promise<number> {
  for (;;) {
    const port = await freeLoopbackPort();
    if (!withBusPort) {
      return port;
    }
    if (
      port + 10_000 <= 65_535 &&
      (await bindableLoopbackPort(port + 10_000).then(
        () => true,
        () => false,
      ))
    ) {
      return port;
    }
  }
}
