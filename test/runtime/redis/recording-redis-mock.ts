import RedisMock from 'ioredis-mock';
import type { Redis } from 'ioredis';

/** An ioredis-mock client that records every command method called on it (not `on`), as `[name, ...args]`. */
export interface RecordingRedisMock {
  readonly client: Redis;
  readonly calls: (readonly unknown[])[];
}

/**
 * A fresh, empty ioredis-mock client (instances share data, so it is flushed first) that records calls. Its `INFO`
 * answers Redis 6.2: the mock claims 8.x, but its fengari Lua cannot parse the `#!lua` shebang that 7+ gets.
 */
export async function recordingRedisMock(): Promise<RecordingRedisMock> {
  const target = new RedisMock();
  await target.flushall();
  const calls: (readonly unknown[])[] = [];
  const client = new Proxy(target, {
    get(object, property, receiver): unknown {
      if (property === 'info') {
        return async (...args: unknown[]) => {
          calls.push(['info', ...args]);
          return '# Server\r\nredis_version:6.2.14\r\n';
        };
      }
      const value: unknown = Reflect.get(object, property, receiver);
      // Listening for connection events (the replica counts do) sends nothing to Redis.
      if (typeof value !== 'function' || typeof property !== 'string' || property === 'on') {
        return value;
      }
      return (...args: unknown[]): unknown => {
        calls.push([property, ...args]);
        return (value as (...inner: unknown[]) => unknown).apply(object, args);
      };
    },
  });
  return { client, calls };
}
