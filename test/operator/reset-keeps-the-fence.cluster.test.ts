import type { Cluster } from 'ioredis';
import { beforeAll, describe, it } from 'vitest';
import { RedisCheckpointStorage, RedisLeaseStrategy } from '../../runtime/index.js';
import { useSharedRedisCluster } from '../support/redis/index.js';
import { builtBin } from './support/operator-cli.js';
import {
  runResetAfterTheConsumersStopped,
  runResetUnderALiveLease,
  type ResetWorld,
} from './support/reset-keeps-the-fence.js';

const shared = useSharedRedisCluster();
const keyPrefix = `${shared.keyPrefix}reset:`;
const storageOptions = { keyPrefix: `${keyPrefix}checkpoint:`, versionKeyPrefix: `${keyPrefix}version:` };
/** A Cluster client of its own for every node, as separate processes would have. */
const connect = (): Cluster => shared.connect({ redisOptions: { commandTimeout: 2_000 } });
let world: ResetWorld;

beforeAll(() => {
  builtBin();
  const admin = connect();
  const [seed] = shared.nodes;
  world = {
    strategy: () =>
      new RedisLeaseStrategy(connect(), {
        keyPrefix: `${keyPrefix}lease:`,
        leaseTimeMs: 1_500,
        onError: () => undefined,
      }),
    storage: () => new RedisCheckpointStorage(connect(), storageOptions),
    raiseTokenFloor: (id, version) =>
      new RedisLeaseStrategy(admin, { keyPrefix: `${keyPrefix}lease:` }).raiseFencingTokenAbove(id, version),
    cliStore: [
      '--cluster',
      '--redis',
      `redis://${seed?.host ?? ''}:${seed?.port ?? 0}`,
      '--key-prefix',
      storageOptions.keyPrefix,
      '--version-key-prefix',
      storageOptions.versionKeyPrefix,
      '--lease-key-prefix',
      `${keyPrefix}lease:`,
    ],
  };
}, 180_000);

describe('reset on a real three-master Redis Cluster keeps the fence', { timeout: 60_000 }, () => {
  it('refuses a subscription with a live lease, and changes nothing', async () => {
    await runResetUnderALiveLease(world);
  });

  it('refuses every earlier holder after the reset, and the next holder delivers from the start position', async () => {
    await runResetAfterTheConsumersStopped(world);
  });
});
