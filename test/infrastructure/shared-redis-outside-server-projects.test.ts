import { describe, expect, it } from 'vitest';
import { useSharedRedis, useSharedRedisCluster } from '../support/redis/index.js';

// A unit file gets no shared servers: asking for one says how to get it instead of failing on a missing address.
describe('shared Redis namespaces in a unit test file', () => {
  it('useSharedRedis() says which file names get a shared redis-server', () => {
    expect(() => useSharedRedis()).toThrow(
      "useSharedRedis(): this test file's project has no shared redis-server. Name the file *.redis.test.ts or *.cluster.test.ts",
    );
  });

  it('useSharedRedisCluster() says which file names get the shared Cluster', () => {
    expect(() => useSharedRedisCluster()).toThrow(
      /project has no shared Redis Cluster\. Name the file \*\.cluster\.test\.ts/,
    );
  });
});
