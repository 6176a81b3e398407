import { useSharedRedis } from '../../support/redis/index.js';
import { describeStoredVersionHardening } from './stored-version-hardening.js';

const redis = useSharedRedis();

describeStoredVersionHardening('a real redis-server', async () => {
  await redis.flush();
  return { client: redis.connect(), options: {} };
});
