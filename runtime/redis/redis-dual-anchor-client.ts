import type { RedisScriptClient } from './redis-checkpoint-client.js';

/**
 * The client a `RedisDualAnchorCheckpointStore` works over: an ioredis `Redis` or `Cluster`, version 5 or 6, which the
 * caller owns, connects and closes. Typed by the few commands the store sends, so the package needs no ioredis types.
 */
export interface RedisDualAnchorClient extends RedisScriptClient {
  hset(key: string, ...fieldsAndValues: string[]): Promise<number>;
  hgetall(key: string): Promise<Record<string, string>>;
  del(key: string): Promise<number>;
}
