import type { RedisScriptClient } from './redis-script-runner.js';

/**
 * The client a `RedisCheckpointStorage` works over: an ioredis `Redis` or `Cluster`, version 5 or 6, which the caller
 * owns, connects and closes. Typed by the few commands the storage sends, so the package needs no ioredis types.
 */
export interface RedisCheckpointClient extends RedisScriptClient {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<unknown>;
  del(...keys: string[]): Promise<number>;
}
