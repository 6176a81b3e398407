import type { Redis } from 'ioredis';
import type { RedisServerProcess } from '../../test/support/redis/index.js';
import type { ServerFault, ServerFaultKind } from './fault-injector.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The Redis faults: `CLIENT PAUSE` through `admins` (one plain connection per server), a crash and restart of a
 * standalone server, or a pause of one Cluster master shorter than `cluster-node-timeout`.
 */
export function redisServerFaults(options: {
  readonly servers: readonly RedisServerProcess[];
  readonly admins: readonly Redis[];
  readonly cluster: boolean;
  readonly leaseMs: number;
}): ReadonlyMap<ServerFaultKind, ServerFault> {
  const { servers, admins, leaseMs } = options;
  const clientPause: ServerFault = async () => {
    // Longer than the lease and than the clients' command timeout: calls time out and still run afterwards.
    const pauseMs = Math.round(2 * leaseMs);
    const paused = await pick(admins)
      ?.call('CLIENT', 'PAUSE', String(pauseMs), 'ALL')
      .then(
        () => true,
        () => false,
      );
    await sleep(pauseMs);
    return paused === true;
  };
  if (options.cluster) {
    const nodePause: ServerFault = async () => {
      // SIGSTOP one master for less than cluster-node-timeout: its slots stall, no failover starts.
      const server = pick(servers);
      if (server === undefined) {
        return false;
      }
      server.pause();
      await sleep(2 * leaseMs);
      server.resume();
      return true;
    };
    return new Map([
      ['client-pause', clientPause],
      ['node-pause', nodePause],
    ]);
  }
  const restart: ServerFault = async () => {
    // A crash (SIGKILL) and a restart: with appendfsync always, every acknowledged write must survive it.
    const server = pick(servers);
    if (server === undefined) {
      return false;
    }
    server.kill();
    await sleep(leaseMs / 2);
    await server.restart();
    return true;
  };
  return new Map([
    ['client-pause', clientPause],
    ['restart', restart],
  ]);
}

function pick<T>(items: readonly T[]): T | undefined {
  return items[Math.floor(Math.random() * items.length)];
}
