import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  type CheckpointStorage,
  type CompetingConsumerStrategy,
  type Member,
  type Membership,
} from '../../../runtime/index.js';
import type { PartitionedInspectionJsonRow } from '../../../operator/inspection-report.js';
import { redisMembershipKeys } from '../../../runtime/store-layout-entry.js';
import { jsonRows, runCli } from './operator-cli.js';

/** A backend for {@link buildPartitionedState}: real memberships, strategies and storages, and the CLI's arguments. */
export interface PartitionedWorld {
  readonly membership: Membership;
  /** A lease strategy of its own for one node, holding its leases for minutes (or `leaseTimeMs`). */
  strategy(leaseTimeMs?: number): CompetingConsumerStrategy;
  readonly storage: CheckpointStorage;
  /** Where the CLI finds the store: `--redis <url>` or `--postgres <url>`. */
  readonly cliStore: readonly string[];
}

/** What the nodes of {@link buildPartitionedState} keep live until the suite ends. */
export interface PartitionedState {
  stop(): Promise<void>;
}

const { notOlderThan } = CheckpointWriteCondition;

/**
 * The state a running partitioned subscription leaves, built by hand with the store's own membership, strategy and
 * storage, as `PartitionedSubscription` keeps them: `orders`, 4 partitions, under the ids `orders/0` to `orders/3`.
 * node-a holds the leases of 0 and 1 and heartbeats them, node-b holds 2; node-c held 3, saved checkpoint 9 and
 * left (lease released, counter kept), so 3 is unowned. `tenant{x}`, 2 partitions, has a member owning nothing and no
 * leases at all. `plain` is a subscription of its own, healthy.
 */
export async function buildPartitionedState(world: PartitionedWorld): Promise<PartitionedState> {
  const { membership, storage } = world;
  const [nodeA, nodeB] = [world.strategy(), world.strategy()];
  const members: Member[] = [
    await membership.join('orders', 'node-a', 4),
    await membership.join('orders', 'node-b', 4),
    await membership.join('tenant{x}', 'node-a', 2),
  ];
  const checkpoints: [string, CompetingConsumerStrategy, string][] = [
    ['orders/0', nodeA, '17'],
    ['orders/1', nodeA, '12'],
    ['orders/2', nodeB, '20'],
    ['plain', nodeA, 'cp-plain'],
  ];
  for (const [id, strategy, checkpoint] of checkpoints) {
    await strategy.register(id, strategy === nodeA ? 'node-a' : 'node-b');
    expect(strategy.hasLock(id, strategy === nodeA ? 'node-a' : 'node-b'), id).toBe(true);
    await storage.save(id, checkpoint, notOlderThan(strategy.fencingToken(id) ?? -1n));
  }
  const nodeC = world.strategy();
  await nodeC.register('orders/3', 'node-c');
  await storage.save('orders/3', '9', notOlderThan(nodeC.fencingToken('orders/3') ?? -1n));
  await nodeC.shutdown();
  await members[0]?.heartbeat([0, 1]);
  await members[1]?.heartbeat([2]);
  return {
    stop: async () => {
      await Promise.all([nodeA.shutdown(), nodeB.shutdown(), ...members.map((member) => member.leave())]);
    },
  };
}

/**
 * Registers, in the calling `describe`, the hooks that build {@link buildPartitionedState} in the world `makeWorld`
 * makes (and stop its nodes after), and the cases every backend passes: the groups in JSON, text and Prometheus
 * text, and a group named by its name. Returns the world, once built, for the backend's own cases.
 */
export function itShowsPartitionedSubscriptions<W extends PartitionedWorld>(makeWorld: () => Promise<W>): () => W {
  let world: W | undefined;
  let state: PartitionedState | undefined;
  const built = (): W => {
    if (world === undefined) {
      throw new Error('The partitioned state was not built; see the beforeAll error.');
    }
    return world;
  };
  beforeAll(async () => {
    world = await makeWorld();
    state = await buildPartitionedState(world);
  }, 60_000);
  afterAll(async () => {
    await state?.stop();
  });
  it('in JSON: each group with its members, every partition with its owner, token and checkpoint, unowned flagged', async () => {
    await expectPartitionedJson(built());
  });
  it('in the text report, after the other subscriptions', async () => {
    await expectPartitionedText(built());
  });
  it('in Prometheus text', async () => {
    await expectPartitionedPrometheus(built());
  });
  it('shows a group named by its name', async () => {
    await expectPartitionedJson(built(), ['plain', 'orders', 'tenant{x}']);
  });
  return built;
}

/** A Redis backend (standalone or Cluster): a client of its own, and the prefix its keys must start with. */
export interface RedisPartitionedWorld extends PartitionedWorld {
  readonly admin: Redis | Cluster;
  /** `''` on a database of the suite's own; the suite's prefix on the shared Cluster. */
  readonly keyPrefix: string;
}

/**
 * {@link itShowsPartitionedSubscriptions}, and the cases of RedisMembership's keys on standalone and Cluster alike: a
 * partition named by its id, memberships under another `--membership-key-prefix`, a member value it never writes.
 */
export function itShowsRedisPartitionedSubscriptions(
  makeWorld: () => Promise<RedisPartitionedWorld>,
): () => RedisPartitionedWorld {
  const world = itShowsPartitionedSubscriptions(makeWorld);
  it('shows a partition named by its id as any subscription', async () => {
    const run = await runCli(['inspect', ...world().cliStore, '--json', 'orders/0']);
    expect(run.status).toBe(0);
    expect(jsonRows(run)).toEqual([expect.objectContaining({ id: 'orders/0', checkpoint: '17', flags: [] })]);
  });
  it('reads the memberships under --membership-key-prefix; under another prefix, partitions are plain rows', async () => {
    const elsewhere = `${world().keyPrefix}elsewhere:`;
    const run = await runCli(['inspect', ...underMembershipPrefix(world().cliStore, elsewhere), '--json']);
    expect(run.status).toBe(1);
    expect(
      jsonRows(run)
        .map(({ id }) => id)
        .sort(),
    ).toEqual(['orders/0', 'orders/1', 'orders/2', 'orders/3', 'plain']);
  });
  it('reports a member value RedisMembership never writes as a problem of its group', async () => {
    const broken = `${world().keyPrefix}broken:`;
    const keys = redisMembershipKeys(broken, 'shipments');
    await world().admin.set(keys.partitions, '4');
    await world().admin.hset(keys.members, 'node-z', 'not a member');
    const run = await runCli(['inspect', ...underMembershipPrefix(world().cliStore, broken), 'shipments']);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('partitioned subscription shipments: 4 partitions, 0 live members, 4 unowned');
    expect(run.stdout).toContain(
      `\n! partitioned subscription "shipments": member "node-z" of ${JSON.stringify(keys.members)} holds "not a member"`,
    );
  });
  return world;
}

/** `store` with `--membership-key-prefix membershipKeyPrefix` in place of its own (the CLI refuses the flag twice). */
function underMembershipPrefix(store: readonly string[], membershipKeyPrefix: string): string[] {
  const at = store.indexOf('--membership-key-prefix');
  const others = at < 0 ? store : [...store.slice(0, at), ...store.slice(at + 2)];
  return [...others, '--membership-key-prefix', membershipKeyPrefix];
}

/** Checks `inspect --json` of {@link buildPartitionedState}: the two groups whole, `plain` among the rows. */
export async function expectPartitionedJson(world: PartitionedWorld, ids: readonly string[] = []): Promise<void> {
  const run = await runCli(['inspect', ...world.cliStore, '--json', ...ids]);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(1);
  const elements = JSON.parse(run.stdout) as ({ id?: string | null } & Partial<PartitionedInspectionJsonRow>)[];
  // No partition is listed among the subscriptions: each is in its group.
  expect(elements.filter((element) => element.partitionedSubscription === undefined).map(({ id }) => id)).toEqual([
    'plain',
  ]);
  const orders = elements.find((element) => element.partitionedSubscription === 'orders');
  expect(orders).toMatchObject({
    partitions: 4,
    members: [
      { nodeId: 'node-a', owned: [0, 1] },
      { nodeId: 'node-b', owned: [2] },
    ],
    unowned: [3],
    flags: ['unowned'],
    problems: [],
  });
  for (const member of orders?.members ?? []) {
    expect(member.memberForMs).toBeGreaterThanOrEqual(0);
    expect(member.expiresInMs).toBeGreaterThan(60_000);
  }
  expect(
    orders?.partitionRows?.map(({ id, partition, owner, checkpoint, storedVersion, leaseToken, flags }) => ({
      id,
      partition,
      owner,
      checkpoint,
      storedVersion,
      leaseToken,
      flags,
    })),
  ).toEqual([
    { id: 'orders/0', partition: 0, owner: 'node-a', checkpoint: '17', storedVersion: '0', leaseToken: '0', flags: [] },
    { id: 'orders/1', partition: 1, owner: 'node-a', checkpoint: '12', storedVersion: '0', leaseToken: '0', flags: [] },
    { id: 'orders/2', partition: 2, owner: 'node-b', checkpoint: '20', storedVersion: '0', leaseToken: '0', flags: [] },
    {
      id: 'orders/3',
      partition: 3,
      owner: null,
      checkpoint: '9',
      storedVersion: '0',
      leaseToken: null,
      flags: ['expired-lease', 'unowned'],
    },
  ]);
  const tenant = elements.find((element) => element.partitionedSubscription === 'tenant{x}');
  expect(tenant).toMatchObject({
    partitions: 2,
    members: [{ nodeId: 'node-a', owned: [] }],
    unowned: [0, 1],
    flags: ['unowned'],
  });
  expect(tenant?.partitionRows?.map(({ id, owner, checkpoint, flags }) => [id, owner, checkpoint, flags])).toEqual([
    ['tenant{x}/0', null, null, ['unowned']],
    ['tenant{x}/1', null, null, ['unowned']],
  ]);
}

/** Checks the text report of {@link buildPartitionedState}: each group's line, members, partitions and `!` line. */
export async function expectPartitionedText(world: PartitionedWorld): Promise<void> {
  const run = await runCli(['inspect', ...world.cliStore]);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(1);
  const lines = run.stdout.split('\n');
  const group = lines.slice(lines.indexOf('partitioned subscription orders: 4 partitions, 2 live members, 1 unowned'));
  expect(group.slice(1, 10).map((line) => line.split(/ {2,}/u))).toEqual([
    ['MEMBER', 'JOINED', 'EXPIRES IN', 'OWNS'],
    ['node-a', expect.stringMatching(/^\d+\.\d s ago$/u), expect.stringMatching(/^\d+\.\d s$/u), '2 (0-1)'],
    ['node-b', expect.stringMatching(/^\d+\.\d s ago$/u), expect.stringMatching(/^\d+\.\d s$/u), '1 (2)'],
    ['PARTITION', 'OWNER', 'TOKEN', 'CHECKPOINT', 'VERSION', 'EXPIRES IN', 'FLAGS'],
    ['orders/0', 'node-a', '0', '17', '0', expect.stringMatching(/^\d+\.\d s$/u), '-'],
    ['orders/1', 'node-a', '0', '12', '0', expect.stringMatching(/^\d+\.\d s$/u), '-'],
    ['orders/2', 'node-b', '0', '20', '0', expect.stringMatching(/^\d+\.\d s$/u), '-'],
    ['orders/3', '-', '-', '9', '0', '-', 'expired-lease,unowned'],
    [
      '! partitioned subscription "orders": 1 of 4 partitions have no owner (3), so nobody delivers them until a node ' +
        'takes their leases; start (or fix) a node of the subscription',
    ],
  ]);
  expect(lines).toContain('partitioned subscription tenant{x}: 2 partitions, 1 live member, 2 unowned');
  expect(lines).toContainEqual(
    expect.stringMatching(/^! partitioned subscription "tenant\{x\}": 2 of 2 partitions have no owner \(0-1\)/u),
  );
  expect(lines.filter((line) => /^plain +cp-plain +0 +node-a /u.test(line))).toHaveLength(1);
  expect(lines.filter((line) => line.startsWith('orders/'))).toHaveLength(4);
  expect(run.stdout).toMatch(
    /^7 subscriptions, 3 flagged \(expired-lease 1, unowned 3\); .*, 2 partitioned subscriptions of 6 partitions read \(/mu,
  );
}

/** Checks `inspect --prometheus` of {@link buildPartitionedState}: ownership by partition, members, unowned counts. */
export async function expectPartitionedPrometheus(world: PartitionedWorld): Promise<void> {
  const run = await runCli(['inspect', ...world.cliStore, '--prometheus']);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(1);
  const lines = run.stdout.split('\n');
  expect(lines).toEqual(
    expect.arrayContaining([
      'checkpoint_fencing_inspect_subscriptions 7',
      'checkpoint_fencing_inspect_flagged{flag="unowned"} 3',
      '# TYPE checkpoint_fencing_inspect_partition_members gauge',
      'checkpoint_fencing_inspect_partition_members{subscription="orders"} 2',
      'checkpoint_fencing_inspect_partition_members{subscription="tenant{x}"} 1',
      'checkpoint_fencing_inspect_partitions_unowned{subscription="orders"} 1',
      'checkpoint_fencing_inspect_partitions_unowned{subscription="tenant{x}"} 2',
      'checkpoint_fencing_inspect_partition_owner{subscription="orders",partition="0",owner="node-a"} 1',
      'checkpoint_fencing_inspect_partition_owner{subscription="orders",partition="2",owner="node-b"} 1',
      'checkpoint_fencing_inspect_partition_owner{subscription="orders",partition="3",owner=""} 0',
      'checkpoint_fencing_inspect_partition_token{subscription="orders",partition="1"} 0',
      'checkpoint_fencing_inspect_partition_checkpoint{subscription="orders",partition="3"} 9',
    ]),
  );
  expect(lines.filter((line) => line.startsWith('checkpoint_fencing_inspect_partition_owner{'))).toHaveLength(6);
  expect(lines.filter((line) => line.startsWith('checkpoint_fencing_inspect_partition_token{'))).toHaveLength(3);
  // Each family is one group: its samples follow its TYPE line with no other family between.
  const families = lines.filter((line) => !line.startsWith('#') && line !== '').map((line) => line.split('{')[0]);
  expect(families.filter((family, index) => family !== families[index - 1])).toEqual([...new Set(families)]);
}
