import type { Redis } from 'ioredis';
import { beforeAll, describe, it } from 'vitest';
import { RedisCheckpointStorage, RedisLeaseStrategy } from '../../runtime/index.js';
import { useSharedRedis } from '../support/redis/index.js';
import { builtBin } from './support/operator-cli.js';
import {
  runResetAfterTheConsumersStopped,
  runResetUnderALiveLease,
  type ResetWorld,
} from './support/reset-keeps-the-fence.js';

const shared = useSharedRedis();
const keyPrefix = 'reset:lease:';
const storageOptions = { keyPrefix: 'reset:checkpoint:' };
/** A connection of its own for every node, as separate processes would have. */
const connect = (): Redis => shared.connect({ commandTimeout: 2_000 });
let world: ResetWorld;

beforeAll(() => {
  builtBin();
  const admin = connect();
  world = {
    strategy: () => new RedisLeaseStrategy(connect(), { keyPrefix, leaseTimeMs: 1_500, onError: () => undefined }),
    storage: () => new RedisCheckpointStorage(connect(), storageOptions),
    raiseTokenFloor: (id, version) => new RedisLeaseStrategy(admin, { keyPrefix }).raiseFencingTokenAbove(id, version),
    cliStore: [
      '--redis',
      `redis://${shared.host}:${shared.port}/${shared.database}`,
      '--key-prefix',
      storageOptions.keyPrefix,
      '--lease-key-prefix',
      keyPrefix,
    ],
  };
}, 180_000);

describe('reset on a real redis-server keeps the fence', { timeout: 60_000 }, () => {
  it('refuses a subscription with a live lease, and changes nothing', async () => {
    await runResetUnderALiveLease(world);
  });

  it('refuses every earlier holder after the reset, and the next holder delivers from the start position', async () => {
    await runResetAfterTheConsumersStopped(world);
  });
});
