import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, RedisCheckpointStorage, redisLeaseKeys } from '../../runtime/index.js';
import { clusterHashSlot } from '../../runtime/redis/cluster-hash-slot.js';
import { eventually } from '../support/leases/event-log.js';
import {
  FailoverTrialClients,
  prefixOf,
  variants,
  type OldHolders,
  type TrialOutcome,
  type Variant,
} from '../support/redis/failover-trial-clients.js';
import { inspectInProcess } from '../operator/support/in-process-inspect.js';
import {
  startReplicatedRedisCluster,
  withAdminConnection,
  type ClusterDataServer,
  type ReplicatedRedisCluster,
} from '../support/redis/index.js';

// Issue 33's Cluster trial: three masters with a replica each; a partition cuts one master off from every other node
// (its Cluster bus and its replica's link, both ways), and its replica's link times out on its side, so it lists no
// replica. It goes on answering as the master of its slots until it notices it lost the majority (cluster_state:fail,
// about a node timeout later), while the majority promotes its replica. Old holders act on the cut-off master in that
// time: a Cluster client that starts after the partition straight against it, or clients warmed up on it before. A new
// holder then takes the lease on the promoted replica. With the default waitForReplicas the node table (CLUSTER SLOTS)
// still lists the replica, so the old holders wait for it and are refused; opted out, they are granted and write, and
// the promoted replica grants the same token again. Trials of the two kinds alternate between two shards, so the
// warmed-up clients never read the replicas of a master a client that starts after the partition reaches: that one
// must know no history of it, as a restarted process does not. One failover at a time: two masters cut off of three
// leave no majority.

const trialsOfEachKind = 6;
const leaseTimeMs = 30_000;
/** The slots whose shards the two kinds of trial cut off: a client that starts after the cut, warmed-up clients. */
const slotOf = { fresh: 0, warmedUp: 16_383 } as const;

let cluster: ReplicatedRedisCluster | undefined;

beforeAll(async () => {
  cluster = await startReplicatedRedisCluster({ partitionable: true });
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

function started(): ReplicatedRedisCluster {
  if (cluster === undefined) {
    throw new Error('The replicated Cluster of this file did not start; see the beforeAll error.');
  }
  return cluster;
}

/** Cluster clients seeded with `seeds` (every node's door by default), with the settings doc/redis.md recommends. */
function clusterClients(
  seeds: readonly { host: string; port: number }[] = started().nodes,
): FailoverTrialClients<Cluster> {
  const connect = (): Cluster =>
    new Cluster([...seeds], {
      clusterRetryStrategy: () => 50,
      redisOptions: { commandTimeout: 2_000, autoResendUnfulfilledCommands: false },
    });
  return new FailoverTrialClients(connect, leaseTimeMs);
}

/** A lease id of trial `trial` in the shard serving `slot`; its checkpoint id is `{lease}`, in the same slot. */
function leaseIdIn(slot: number, trial: number): string {
  const { firstSlot, lastSlot } = started().shardOf(slot);
  for (let n = 0; ; n += 1) {
    const id = `trial-${trial}-${n}`;
    const at = clusterHashSlot(id);
    if (firstSlot <= at && at <= lastSlot) {
      return id;
    }
  }
}

/**
 * Writes version 1 of `checkpoint` on the master and waits until its replica has it, without waitForReplicas (this
 * process reads no replica count of the master that way).
 */
async function writeBeforeTheCut(master: ClusterDataServer, checkpoint: string): Promise<void> {
  await withAdminConnection(master, async (admin) => {
    for (const variant of variants) {
      const storage = new RedisCheckpointStorage(admin, {
        keyPrefix: prefixOf(variant),
        versionKeyPrefix: `${prefixOf(variant)}version:`,
        waitForReplicas: false,
      });
      await storage.save(checkpoint, 'before@1', CheckpointWriteCondition.notOlderThan(1));
    }
    expect(await admin.call('WAIT', '1', '5000'), 'the replica has the write before the cut').toBe(1);
  });
}

/** Each variant's old holder is granted (or refused) and writes (or is refused): what its write reports. */
async function grantAndWrite(oldHolders: OldHolders, lease: string): Promise<Record<Variant, unknown>> {
  const [granted, written] = await Promise.all([
    Promise.all(variants.map((variant) => oldHolders.strategies[variant].register(lease, 'old-holder'))),
    Promise.all(
      variants.map((variant) =>
        oldHolders.storages[variant].save(`{${lease}}`, 'during@2', CheckpointWriteCondition.notOlderThan(2)).then(
          () => 'accepted' as const,
          (error: unknown) => error,
        ),
      ),
    ),
  ]);
  // The negative control's precondition: opted out, the cut-off master grants and takes the write.
  expect(granted[1], 'opted out: granted on the cut-off master').toBe(true);
  expect(written[1], 'opted out: written on the cut-off master').toBe('accepted');
  return { default: written[0], 'opted out': written[1] };
}

/**
 * One grant and one conditional write by each old holder in `lease`'s slot, tried until made: after a failover the
 * Cluster client learns of the new master only when a call fails or its slots are refreshed, and a single `GET`
 * (what a subscription does after a failed write: read the checkpoint again) makes it refresh.
 */
async function warmUp(oldHolders: OldHolders, lease: string): Promise<void> {
  for (const variant of variants) {
    const strategy = oldHolders.strategies[variant];
    const storage = oldHolders.storages[variant];
    await eventually(`${variant}: a warm-up grant`, async () => {
      const granted = await strategy.register(lease, 'warm-up');
      await strategy.unregister(lease, 'warm-up');
      return granted;
    });
    await eventually(`${variant}: a warm-up write`, () =>
      storage.save(`{${lease}}warm-up`, 'warm-up@0', CheckpointWriteCondition.notOlderThan(0)).then(
        () => true,
        async () => {
          await storage.read(`{${lease}}warm-up`).catch(() => undefined);
          return false;
        },
      ),
    );
  }
}

/** One trial: the outcome of each variant, and how long the subscription stayed unowned under the default. */
interface Trial {
  readonly outcomes: Record<Variant, TrialOutcome>;
  readonly unownedMs: number;
}

/**
 * Cuts the master of `lease`'s shard off; `oldHolders` (made by `holders`, at once after the cut or before) act on
 * it; the new holders take the lease on its promoted replica. Recovers the Cluster afterwards.
 */
async function trialOn(lease: string, holders: () => OldHolders): Promise<Trial> {
  const slot = clusterHashSlot(lease);
  const { master } = started().shardOf(slot);
  const majority = started().nodes.filter(({ port }) => port !== master.door.port);
  const newHolders = clusterClients(majority);
  const acting: { holders?: OldHolders } = {};
  try {
    await writeBeforeTheCut(master, `{${lease}}`);
    let written: Record<Variant, unknown> = { default: undefined, 'opted out': undefined };
    const cutAt = performance.now();
    const { promoted } = await started().partitionMaster(slot, async () => {
      acting.holders = holders();
      written = await grantAndWrite(acting.holders, lease);
    });
    await withAdminConnection(promoted, async (admin) => {
      for (const variant of variants) {
        expect(await admin.exists(redisLeaseKeys(prefixOf(variant), lease).token), `${variant}: token key`).toBe(0);
        expect(await admin.get(`${prefixOf(variant)}{${lease}}`), `${variant}: checkpoint`).toBe('before@1');
      }
    });
    const outcomes = {} as Record<Variant, TrialOutcome>;
    let unownedMs = Number.NaN;
    for (const variant of variants) {
      const newHolder = newHolders.strategy(variant);
      await eventually(`${variant}: the new holder takes the lease on the promoted replica`, () =>
        newHolder.register(lease, 'new-holder'),
      );
      const token = newHolder.fencingToken(lease);
      await eventually(`${variant}: the new holder's first fenced write is accepted`, () =>
        newHolders
          .storage(variant)
          .save(`{${lease}}new-holder`, `new@${token}`, CheckpointWriteCondition.notOlderThan(token ?? 0n))
          .then(
            () => true,
            () => false,
          ),
      );
      if (variant === 'default') {
        unownedMs = performance.now() - cutAt;
      }
      const old = acting.holders?.strategies[variant];
      outcomes[variant] = {
        duplicatedToken: old?.hasLock(lease, 'old-holder') === true && old.fencingToken(lease) === token,
        acceptedWriteLost: written[variant] === 'accepted',
      };
    }
    return { outcomes, unownedMs };
  } finally {
    const { holders: old } = acting;
    if (old !== undefined) {
      await Promise.all(variants.map((variant) => old.strategies[variant].unregister(lease, 'old-holder')));
    }
    await newHolders.close();
    await started().recover();
  }
}

/** Reports the trials' outcomes and unowned times, and checks them. */
function checkTrials(label: string, trials: readonly Trial[]): void {
  const count = (variant: Variant, key: keyof TrialOutcome): number =>
    trials.filter(({ outcomes }) => outcomes[variant][key]).length;
  const unowned = trials.map(({ unownedMs }) => Math.round(unownedMs)).sort((a, b) => a - b);
  console.info(
    `${label}: ${trials.length} per variant; default: ${count('default', 'duplicatedToken')} duplicated tokens, ` +
      `${count('default', 'acceptedWriteLost')} accepted writes lost; waitForReplicas false: ` +
      `${count('opted out', 'duplicatedToken')} duplicated tokens, ${count('opted out', 'acceptedWriteLost')} accepted writes lost; ` +
      `unowned from the cut until the new holder wrote: median ${unowned[Math.floor(unowned.length / 2)]} ms ` +
      `(${unowned[0]}–${unowned.at(-1)} ms)`,
  );
  expect(count('default', 'duplicatedToken')).toBe(0);
  expect(count('default', 'acceptedWriteLost')).toBe(0);
  expect(count('opted out', 'duplicatedToken')).toBeGreaterThan(trials.length / 2);
  expect(count('opted out', 'acceptedWriteLost')).toBeGreaterThan(trials.length / 2);
}

describe('inspect --cluster on the 3+3 Cluster', () => {
  it("reports each master's replica from its INFO and its node table, and flags them for an application that does not wait", async () => {
    const [seed] = started().nodes;
    const args = ['--cluster', '--redis', `redis://127.0.0.1:${seed?.port ?? 0}`];
    const healthy = await inspectInProcess(args);
    const text = healthy.writes.flatMap((write) => (write.stream === 'out' ? [write.text] : [])).join('');
    expect(healthy.code).toBe(0);
    expect(
      text.match(
        /^replication: master .*: lists 1 replica \(.*\); the Cluster's node table 1; min-replicas-to-write 0 /gmu,
      ),
    ).toHaveLength(3);
    const optedOut = await inspectInProcess([...args, '--wait-for-replicas', 'false']);
    const flagged = optedOut.writes.flatMap((write) => (write.stream === 'out' ? [write.text] : [])).join('');
    expect(optedOut.code).toBe(1);
    expect(flagged.match(/^! replication: partition-can-lose-grants: /gmu)).toHaveLength(3);
  });
});

describe('Cluster 3+3: a master cut off by a partition, which lists no replica, while the majority promotes its replica', () => {
  it(`${trialsOfEachKind} trials each, with a client that starts after the partition straight against it and with clients warmed up on it: by default both are refused; opted out, most trials duplicate a token and lose a write`, async () => {
    const warm = clusterClients();
    const warmedUp = warm.oldHolders();
    const fresh: Trial[] = [];
    const kept: Trial[] = [];
    const made: FailoverTrialClients<Cluster>[] = [];
    try {
      for (let trial = 0; trial < trialsOfEachKind; trial += 1) {
        // A process that starts during the partition, seeded with the cut-off master alone.
        const freshLease = leaseIdIn(slotOf.fresh, trial);
        const { master } = started().shardOf(slotOf.fresh);
        fresh.push(
          await trialOn(freshLease, () => {
            const restarted = clusterClients([{ host: master.door.host, port: master.door.port }]);
            made.push(restarted);
            return restarted.oldHolders();
          }),
        );
        const warmLease = leaseIdIn(slotOf.warmedUp, trial);
        await warmUp(warmedUp, leaseIdIn(slotOf.warmedUp, trialsOfEachKind + trial));
        kept.push(await trialOn(warmLease, () => warmedUp));
      }
    } finally {
      await Promise.all([warm, ...made].map((clients) => clients.close()));
    }
    checkTrials('cluster partition trials, a client started after the cut', fresh);
    checkTrials('cluster partition trials, warmed-up clients', kept);
  }, 300_000);
});
