import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { RedisCheckpointStorage, RedisLeaseStrategy } from '../../runtime/index.js';
import { redisLeaseKeys } from '../../runtime/store-layout-entry.js';
import { useSharedRedis } from '../support/redis/index.js';
import { builtBin } from './support/operator-cli.js';
import { runRepairOnStuckNodes } from './support/repair-resumes-delivery.js';

const shared = useSharedRedis();
const leaseTimeMs = 1_500;
const keyPrefix = 'repair:lease:';
/** A connection of its own for every node, as separate processes would have. */
const connect = (): Redis => shared.connect({ commandTimeout: 2_000 });

beforeAll(() => {
  builtBin();
}, 180_000);

describe('repair --raise-token on a real redis-server, under two live DurableSubscription nodes', () => {
  it(
    'resumes delivery within two lease times, with nothing replayed from before the stored checkpoint',
    { timeout: 60_000 },
    async () => {
      const admin = connect();
      const report = await runRepairOnStuckNodes({
        leaseTimeMs,
        strategy: () => new RedisLeaseStrategy(connect(), { keyPrefix, leaseTimeMs, onError: () => undefined }),
        storage: () => new RedisCheckpointStorage(connect(), { keyPrefix: 'repair:checkpoint:' }),
        raiseTokenFloor: (id, version) =>
          new RedisLeaseStrategy(admin, { keyPrefix }).raiseFencingTokenAbove(id, version),
        loseLeaseAndCounter: async (id) => {
          const { lease, token } = redisLeaseKeys(keyPrefix, id);
          expect(await admin.del(lease, token)).toBe(2);
        },
        cliStore: [
          '--redis',
          `redis://${shared.host}:${shared.port}/${shared.database}`,
          '--key-prefix',
          'repair:checkpoint:',
          '--lease-key-prefix',
          keyPrefix,
        ],
      });
      expect(report.storedVersion).toBeGreaterThan(40n);
    },
  );
});
