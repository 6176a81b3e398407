import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { startRedisSentinel, type RedisSentinelTopology } from './start-redis-sentinel.js';

/** One test file's Sentinel topology and the clients its cases open on it. */
export interface SentinelForThisFile {
  /** The topology, once `beforeAll` has started it. */
  readonly topology: () => RedisSentinelTopology;
  /**
   * Keeps `client` to disconnect after the file, and silences its `error` events: a reconnect through a failover
   * raises them on the client, while the calls that fail report them themselves.
   */
  readonly track: (client: Redis) => Redis;
}

/**
 * Starts a Sentinel topology of the test file's own ({@link startRedisSentinel}) in `beforeAll`; disconnects the
 * tracked clients and stops the topology in `afterAll`. A topology per file, because its cases fail the master over.
 */
export function sentinelForThisFile(): SentinelForThisFile {
  let topology: RedisSentinelTopology | undefined;
  const clients: Redis[] = [];
  beforeAll(async () => {
    topology = await startRedisSentinel();
  });
  afterAll(async () => {
    for (const client of clients.splice(0)) {
      client.disconnect();
    }
    await topology?.stop();
  });
  return {
    topology: () => {
      if (topology === undefined) {
        throw new Error('The Sentinel topology of this test file did not start; see the beforeAll error.');
      }
      return topology;
    },
    track: (client) => {
      client.on('error', () => undefined);
      clients.push(client);
      return client;
    },
  };
}
