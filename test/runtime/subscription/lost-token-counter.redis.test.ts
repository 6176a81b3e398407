import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisCheckpointStorage, RedisLeaseStrategy, redisLeaseKeys } from '../../../runtime/index.js';
import { runLostCounterRecovery } from '../../support/leases/lost-counter-recovery.js';
import { startRedisServer, type RedisServerProcess } from '../../support/redis/index.js';

const leaseTimeMs = 600;
const keyPrefix = 'lost-counter:';
let server: RedisServerProcess | undefined;
const clients: Redis[] = [];

beforeAll(async () => {
  server = await startRedisServer();
});

afterAll(async () => {
  for (const client of clients.splice(0)) {
    client.disconnect();
  }
  await server?.stop();
});

/** A connection of its own for every node, as separate processes would have. */
function connect(): Redis {
  if (server === undefined) {
    throw new Error('The redis-server of this suite did not start; see the beforeAll error.');
  }
  const client = new Redis({ host: server.host, port: server.port });
  clients.push(client);
  return client;
}

describe('DurableSubscription on a real redis-server, when the lease and token keys are deleted mid-run', () => {
  it('resumes within two lease times with the next token above the stored version; nothing moves backward', async () => {
    const admin = connect();
    const report = await runLostCounterRecovery({
      leaseTimeMs,
      strategy: () => new RedisLeaseStrategy(connect(), { keyPrefix, leaseTimeMs }),
      storage: () => new RedisCheckpointStorage(connect(), { keyPrefix: 'lost-counter:checkpoint:' }),
      loseLeaseAndCounter: async (subscriptionId) => {
        const { lease, token } = redisLeaseKeys(keyPrefix, subscriptionId);
        expect(await admin.del(lease, token)).toBe(2);
      },
    });
    expect(report.grantsAfterLoss).toContain(report.versionBeforeLoss + 1n);
  });
});
