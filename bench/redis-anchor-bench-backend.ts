import { Redis } from 'ioredis';
import { RedisDualAnchorCheckpointStore } from '../runtime/dual-anchor-entry.js';
import { startRedisServer } from '../test/support/redis/index.js';
import type { AnchorBenchBackend } from './anchor-bench-backend.js';

const plainField = 'payload';

/** A redis-server of its own on a free port and one ioredis client, shared by the store and the plain `HSET`. */
export async function redisAnchorBenchBackend(): Promise<AnchorBenchBackend> {
  const server = await startRedisServer();
  const client = new Redis({ host: server.host, port: server.port });
  const version = /redis_version:(\S+)/.exec(await client.info('server'))?.[1] ?? '?';
  const store = new RedisDualAnchorCheckpointStore(client);
  return {
    description: `Redis ${version}, one ioredis client`,
    store,
    inFlight: 64,
    operations: 10_000,
    // The hash's field names and values, less the plain write's own field name.
    plainValueBytes: async (token, timestamp, heartbeatTimestamp) => {
      await store.saveProcessed('bench-size-probe', token, timestamp, heartbeatTimestamp);
      const written = await client.hgetall(store.recordKey('bench-size-probe'));
      await store.delete('bench-size-probe');
      return Object.entries(written).reduce(
        (bytes, [field, value]) => bytes + Buffer.byteLength(field) + Buffer.byteLength(value),
        -Buffer.byteLength(plainField),
      );
    },
    plainWriteName: 'HSET of one field',
    plainWrite: (key, value) => client.hset(key, plainField, value),
    close: async () => {
      client.disconnect();
      await server.stop();
    },
  };
}
