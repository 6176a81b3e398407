import { describe, expect, it } from 'vitest';
import { RedisCheckpointStorage, RedisLeaseStrategy, RedisMembership } from '../../runtime/index.js';
import { redisMembershipKeys } from '../../runtime/store-layout-entry.js';
import { useSharedRedis } from '../support/redis/index.js';
import { builtBin, jsonRows, runCli } from './support/operator-cli.js';
import { itShowsPartitionedSubscriptions } from './support/partitioned-inspection.js';

// Partitioned subscriptions as RedisMembership, RedisLeaseStrategy and the storage leave them on a real redis-server
// (the suite's own database), read by the spawned CLI in text, JSON and Prometheus text.

const shared = useSharedRedis();

describe('inspect --redis groups partitioned subscriptions', { timeout: 60_000 }, () => {
  const world = itShowsPartitionedSubscriptions(async () => {
    builtBin();
    return {
      membership: new RedisMembership(shared.connect(), { memberTimeMs: 120_000 }),
      strategy: (leaseTimeMs = 120_000) =>
        new RedisLeaseStrategy(shared.connect(), { leaseTimeMs, onError: () => undefined }),
      storage: RedisCheckpointStorage.forStandalone(shared.connect()),
      cliStore: ['--redis', `redis://${shared.host}:${shared.port}/${shared.database}`],
    };
  });

  it('shows a partition named by its id as any subscription', async () => {
    const run = await runCli(['inspect', ...world().cliStore, '--json', 'orders/0']);
    expect(run.status).toBe(0);
    expect(jsonRows(run)).toEqual([expect.objectContaining({ id: 'orders/0', checkpoint: '17', flags: [] })]);
  });

  it('reads the memberships under --membership-key-prefix; under another prefix, partitions are plain rows', async () => {
    const run = await runCli(['inspect', ...world().cliStore, '--json', '--membership-key-prefix', 'elsewhere:']);
    expect(run.status).toBe(1);
    expect(
      jsonRows(run)
        .map(({ id }) => id)
        .sort(),
    ).toEqual(['orders/0', 'orders/1', 'orders/2', 'orders/3', 'plain']);
  });

  it('reports a member value RedisMembership never writes as a problem of its group', async () => {
    const admin = shared.connect();
    const keys = redisMembershipKeys('broken:', 'shipments');
    await admin.set(keys.partitions, '4');
    await admin.hset(keys.members, 'node-z', 'not a member');
    const run = await runCli(['inspect', ...world().cliStore, '--membership-key-prefix', 'broken:', 'shipments']);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('partitioned subscription shipments: 4 partitions, 0 live members, 4 unowned');
    expect(run.stdout).toMatch(
      /^! partitioned subscription "shipments": member "node-z" of "broken:\{shipments\}:members" holds "not a member"/mu,
    );
  });
});
