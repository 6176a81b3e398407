import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { RedisAddress } from './admin-connection.js';
import { startRedisServer, type RedisServerProcess } from './start-redis-server.js';

const run = promisify(execFile);

/** A real three-master Redis Cluster on loopback, started by {@link startRedisCluster}. */
export interface RedisClusterProcess {
  /** The masters, in the order their slot ranges were assigned (0–5460, 5461–10922, 10923–16383). */
  readonly nodes: readonly { readonly host: '127.0.0.1'; readonly port: number }[];
  /** The node processes, for fault tests (kill, pause, restart one master). */
  readonly servers: readonly RedisServerProcess[];
  /** Stops every node and removes their data dirs. Idempotent. */
  stop(): Promise<void>;
}

const stateOkTimeoutMs = 20_000;

/**
 * Starts three `redis-server --cluster-enabled yes` nodes on free loopback ports (each with its bus port, port +
 * 10000, free), joins them with `redis-cli --cluster create ... --cluster-replicas 0 --cluster-yes`, and resolves
 * once `CLUSTER INFO` says `cluster_state:ok` on every node. Rejects (never skips) when redis-server or redis-cli
 * is missing; on any failure the nodes already started are stopped.
 */
export async function startRedisCluster(): Promise<RedisClusterProcess> {
  const servers: RedisServerProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(servers.map((server) => server.stop()));
  };
  try {
    for (let index = 0; index < 3; index += 1) {
      servers.push(
        await startRedisServer({
          reserveClusterBusPort: true,
          args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000'],
        }),
      );
    }
    const addresses = servers.map((server) => `${server.host}:${server.port}`);
    await redisCli(['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes']);
    await Promise.all(servers.map((server) => waitForClusterStateOk(server)));
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes: servers.map(({ host, port }) => ({ host, port })), servers, stop };
}

/** Resolves once `server` answers `CLUSTER INFO` with `cluster_state:ok`; rejects after 20 s with its last answer. */
export async function waitForClusterStateOk(server: RedisAddress): Promise<void> {
  const deadline = Date.now() + stateOkTimeoutMs;
  let info = '';
  while (Date.now() < deadline) {
    info = await redisCli(['-h', server.host, '-p', String(server.port), 'CLUSTER', 'INFO']);
    if (info.includes('cluster_state:ok')) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(
    `Cluster node ${server.port} did not reach cluster_state:ok within ${stateOkTimeoutMs} ms. CLUSTER INFO:\n${info}`,
  );
}

/** Runs redis-cli with `args` and resolves to its output; rejects saying how to install it when it is missing. */
export async function redisCli(args: readonly string[]): Promise<string> {
  try {
    const { stdout } = await run('redis-cli', args, { timeout: 30_000 });
    return stdout;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(
        'redis-cli was not found on PATH, and the Redis Cluster tests need it to create the cluster. ' +
          'Install it with `apt-get install redis-server` (it brings redis-tools; `npm test` does this itself when run as root), then run the tests again.',
        { cause: error },
      );
    }
    throw new Error(`redis-cli ${args.join(' ')} failed: ${String(error)}`, { cause: error });
  }
}
