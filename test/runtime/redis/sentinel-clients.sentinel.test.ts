import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  DurableSubscription,
  RedisCheckpointStorage,
  RedisLeaseStrategy,
} from '../../../runtime/index.js';
import { redisLeaseKeys } from '../../../runtime/store-layout-entry.js';
import {
  describeCheckpointStorageConformance,
  describeCompetingConsumerStrategyConformance,
} from '../../../runtime/testing/index.js';
import { eventually, EventLog } from '../../support/leases/event-log.js';
import { sentinelForThisFile, withAdminConnection } from '../../support/redis/index.js';

// RedisCheckpointStorage and RedisLeaseStrategy over ioredis clients that find the master through Sentinel
// (`new Redis({ sentinels, name })`), with their defaults: the master has a replica, so every conditional write and
// every grant waits for it. A topology of its own: the last case fails the master over.

const { topology: started, track } = sentinelForThisFile();
let prefixes = 0;

/** A client as doc/redis.md shows it for Sentinel: it asks the Sentinels for the master, again after a failover. */
function sentinelClient(): Redis {
  const { sentinelOptions } = started();
  const client = new Redis({
    sentinels: [...sentinelOptions.sentinels],
    name: sentinelOptions.name,
    commandTimeout: 2_000,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
  });
  return track(client);
}

function freshPrefix(): string {
  prefixes += 1;
  return `sentinel-${prefixes}:`;
}

/** How many WAIT commands the current master has run. */
async function waitsRunOnMaster(): Promise<number> {
  return withAdminConnection(started().master(), async (admin) =>
    Number(/^cmdstat_wait:calls=(\d+)/mu.exec(await admin.info('commandstats'))?.[1] ?? 0),
  );
}

describeCheckpointStorageConformance('RedisCheckpointStorage over a Sentinel client, waiting for the replica', () => {
  const prefix = freshPrefix();
  return new RedisCheckpointStorage(sentinelClient(), { keyPrefix: prefix, versionKeyPrefix: `${prefix}version:` });
});

describeCompetingConsumerStrategyConformance(
  'RedisLeaseStrategy over Sentinel clients, waiting for the replica',
  () => {
    const keyPrefix = freshPrefix();
    const admin = sentinelClient();
    return {
      leaseTimeMs: 1_000,
      node: async () => {
        const client = sentinelClient();
        await client.ping();
        return new RedisLeaseStrategy(client, { keyPrefix, leaseTimeMs: 1_000 });
      },
      deleteLease: async (subscriptionId) => {
        await admin.del(redisLeaseKeys(keyPrefix, subscriptionId).lease);
      },
    };
  },
);

describe('RedisCheckpointStorage and RedisLeaseStrategy over Sentinel clients', () => {
  it('wait for the replica by default: a fenced write and a grant each send one WAIT, and the replica has both', async () => {
    const prefix = freshPrefix();
    const storage = new RedisCheckpointStorage(sentinelClient(), {
      keyPrefix: prefix,
      versionKeyPrefix: `${prefix}version:`,
    });
    const strategy = new RedisLeaseStrategy(sentinelClient(), { keyPrefix: prefix, leaseTimeMs: 5_000 });
    await storage.save('warm-up', 'cp', CheckpointWriteCondition.notOlderThan(1));
    const before = await waitsRunOnMaster();
    await storage.save('orders', 'offset-3', CheckpointWriteCondition.notOlderThan(3));
    expect(await strategy.register('orders', 'node-a')).toBe(true);
    expect(await waitsRunOnMaster()).toBe(before + 2);
    await withAdminConnection(started().replica(), async (replica) => {
      expect(await replica.get(`${prefix}orders`)).toBe('offset-3');
      expect(await replica.get(strategy.leaseKeys('orders').token)).toBe('0');
    });
    await strategy.shutdown();
  });

  it('a DurableSubscription on Sentinel clients delivers through a failover: every event checkpointed, never backward', async () => {
    const prefix = freshPrefix();
    const storage = new RedisCheckpointStorage(sentinelClient(), {
      keyPrefix: prefix,
      versionKeyPrefix: `${prefix}version:`,
    });
    const strategy = new RedisLeaseStrategy(sentinelClient(), {
      keyPrefix: prefix,
      leaseTimeMs: 1_500,
      onError: () => undefined,
    });
    const errors: unknown[] = [];
    const subscription = new DurableSubscription({
      storage,
      strategy,
      subscriberId: 'node-a',
      holdBackPollMs: 10,
      retryDelayMs: 50,
      onError: (error) => errors.push(error),
    });
    const log = new EventLog();
    const seen: number[] = [];
    const watching = { active: true };
    const reader = new RedisCheckpointStorage(sentinelClient(), {
      keyPrefix: prefix,
      versionKeyPrefix: `${prefix}version:`,
    });
    const watcher = (async () => {
      while (watching.active) {
        const stored = await reader.read('orders').catch(() => undefined);
        if (stored !== undefined) {
          seen.push(Number(stored));
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    subscription.subscribe('orders', log.source, () => undefined, { startPosition: '-1' });
    try {
      log.append(20);
      await eventually('the first events are checkpointed', async () => (await storage.read('orders')) === '19');
      await started().killMaster();
      log.append(20);
      await eventually(
        'every event is checkpointed on the new master',
        async () => (await storage.read('orders').catch(() => undefined)) === '39',
      );
      await started().recover();
      log.append(20);
      await eventually(
        'every event is checkpointed with the new replica',
        async () => (await storage.read('orders')) === '59',
      );
    } finally {
      watching.active = false;
      await watcher;
      await subscription.shutdown();
      await strategy.shutdown();
    }
    for (let index = 1; index < seen.length; index += 1) {
      expect(seen[index] ?? -1, `read ${index}`).toBeGreaterThanOrEqual(seen[index - 1] ?? -1);
    }
    // Nothing was refused: a failover made writes fail or wait, never moved the lease on under this node.
    expect(errors.filter((error) => (error as Error).name === 'CheckpointWriteConditionNotFulfilledError')).toEqual([]);
  });
});
