import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisLeaseStrategy } from '../../../runtime/index.js';
import { redisLeaseKeys } from '../../../runtime/store-layout-entry.js';
import { useSharedRedis } from '../../support/redis/index.js';

// RedisLeaseStrategy.raiseFencingTokenAbove on a real server, beyond what the conformance kit checks for every strategy:
// one script on the token counter, what it leaves alone, and what it refuses.

const shared = useSharedRedis();
let admin: Redis | undefined;
const keyPrefix = 'token-floor:';

/** The suite's client on its own database of the shared server, emptied for the case. */
async function emptied(): Promise<Redis> {
  admin ??= shared.connect();
  await shared.flush();
  return admin;
}

describe('RedisLeaseStrategy.raiseFencingTokenAbove on a real redis-server', () => {
  it('sets a missing counter to the version, raises a lower one, keeps a higher one, and leaves the lease key alone', async () => {
    const redis = await emptied();
    const strategy = new RedisLeaseStrategy(redis, { keyPrefix, leaseTimeMs: 60_000 });
    const keys = redisLeaseKeys(keyPrefix, 'orders');
    try {
      await strategy.raiseFencingTokenAbove('orders', 7n);
      expect(await redis.get(keys.token)).toBe('7');
      expect(await strategy.register('orders', 'node-a')).toBe(true);
      expect(strategy.fencingToken('orders')).toBe(8n);
      const lease = await redis.get(keys.lease);
      const ttl = await redis.pttl(keys.lease);

      await strategy.raiseFencingTokenAbove('orders', 2n ** 62n);
      expect(await redis.get(keys.token)).toBe(String(2n ** 62n));
      await strategy.raiseFencingTokenAbove('orders', 100n);
      expect(await redis.get(keys.token)).toBe(String(2n ** 62n));
      expect(await redis.get(keys.lease)).toBe(lease);
      expect(await redis.pttl(keys.lease)).toBeLessThanOrEqual(ttl);
      expect(strategy.fencingToken('orders')).toBe(8n);
    } finally {
      await strategy.shutdown();
    }
  });

  it('refuses a counter that holds something other than a canonical decimal, writing nothing', async () => {
    const redis = await emptied();
    const strategy = new RedisLeaseStrategy(redis, { keyPrefix, leaseTimeMs: 60_000 });
    const { token } = redisLeaseKeys(keyPrefix, 'orders');
    try {
      for (const bad of ['007', 'abc', '-3', ' 9']) {
        await redis.set(token, bad);
        await expect(strategy.raiseFencingTokenAbove('orders', 50n)).rejects.toThrow(
          new RegExp(
            `Token counter .*holds ${JSON.stringify(bad).replace(/[+]/gu, '\\+')}, not a canonical decimal`,
            'u',
          ),
        );
        expect(await redis.get(token)).toBe(bad);
      }
    } finally {
      await strategy.shutdown();
    }
  });

  it('refuses a version INCR could never mint above, before sending anything', async () => {
    const redis = await emptied();
    const strategy = new RedisLeaseStrategy(redis, { keyPrefix, leaseTimeMs: 60_000 });
    try {
      await expect(strategy.raiseFencingTokenAbove('orders', 2n ** 63n - 1n)).rejects.toThrow(RangeError);
      expect(await redis.dbsize()).toBe(0);
      await strategy.raiseFencingTokenAbove('orders', 2n ** 63n - 2n);
      expect(await strategy.register('orders', 'node-a')).toBe(true);
      expect(strategy.fencingToken('orders')).toBe(2n ** 63n - 1n);
    } finally {
      await strategy.shutdown();
    }
  });
});
