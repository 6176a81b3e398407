import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { SoakRedisTarget } from './soak-messages.js';

/**
 * Client options for every soak connection. `autoResendUnfulfilledCommands: false`: after a reconnect, ioredis would
 * otherwise send a command again that the dropped connection may already have delivered, so one recorded save could
 * apply twice, the second time refused, and the caller would be told "refused" for a write that landed (see
 * doc/reliability.md). A command timeout turns a stuck call into an unknown outcome instead of a hang.
 */
const connectionOptions: RedisOptions = {
  autoResendUnfulfilledCommands: false,
  commandTimeout: 1_000,
  maxRetriesPerRequest: 1,
  retryStrategy: (attempt: number) => Math.min(attempt * 25, 250),
};

/** A connected ioredis client for the soak's target: standalone, Cluster, or a master found through Sentinels. */
export function createSoakClient(target: SoakRedisTarget): Redis | Cluster {
  if (target.mode === 'standalone') {
    return new Redis({ ...connectionOptions, host: target.host, port: target.port });
  }
  if (target.mode === 'sentinel') {
    return new Redis({
      ...connectionOptions,
      sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
      name: target.name,
      sentinelRetryStrategy: (attempt: number) => Math.min(attempt * 25, 250),
      // A master the Sentinels made a replica keeps its connections: ask the Sentinels again (doc/redis.md).
      reconnectOnError: (error) => error.message.startsWith('READONLY'),
      ...(target.connectionName === undefined ? {} : { connectionName: target.connectionName }),
    });
  }
  return new Cluster(
    target.nodes.map(({ host, port }) => ({ host, port })),
    { redisOptions: connectionOptions, clusterRetryStrategy: (attempt: number) => Math.min(attempt * 25, 250) },
  );
}
