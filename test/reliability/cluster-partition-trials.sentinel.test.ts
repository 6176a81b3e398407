import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterHashSlot } from '../../runtime/redis/cluster-hash-slot.js';
import {
  FailoverTrialClients,
  expectMissingOn,
  grantAndWrite,
  type OldHolders,
  type Variant,
} from '../support/redis/failover-trial-clients.js';
import { inspectInProcess } from '../operator/support/in-process-inspect.js';
import { startReplicatedRedisCluster, type ReplicatedRedisCluster } from '../support/redis/index.js';
import {
  checkPartitionTrials,
  endTrial,
  newHoldersTake,
  outcomesOf,
  warmUp,
  writeBeforeTheCut,
  type PartitionTrial,
} from '../support/redis/partition-trial.js';

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
 * Cuts the master of `lease`'s shard off; `oldHolders` (made by `holders`, at once after the cut or before) act on
 * it; the new holders take the lease on its promoted replica. Recovers the Cluster afterwards.
 */
async function trialOn(lease: string, holders: () => OldHolders): Promise<PartitionTrial> {
  const slot = clusterHashSlot(lease);
  const checkpoint = `{${lease}}`;
  const { master } = started().shardOf(slot);
  const majority = started().nodes.filter(({ port }) => port !== master.door.port);
  const newHolders = clusterClients(majority);
  const acting: { holders?: OldHolders } = {};
  try {
    await writeBeforeTheCut(master, checkpoint, 1);
    let written: Record<Variant, unknown> = { default: undefined, 'opted out': undefined };
    const cutAt = performance.now();
    const { promoted } = await started().partitionMaster(slot, async () => {
      acting.holders = holders();
      written = await grantAndWrite(acting.holders, lease, checkpoint);
    });
    await expectMissingOn(promoted, lease, checkpoint);
    const { tokens, writtenAt } = await newHoldersTake(newHolders, lease, checkpoint);
    return {
      outcomes: outcomesOf(acting.holders ?? holders(), lease, written, tokens),
      unownedMs: writtenAt - cutAt,
    };
  } finally {
    await endTrial(acting.holders, lease, [newHolders]);
    await started().recover();
  }
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
    const fresh: PartitionTrial[] = [];
    const kept: PartitionTrial[] = [];
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
        const warmUpLease = leaseIdIn(slotOf.warmedUp, trialsOfEachKind + trial);
        await warmUp(warmedUp, warmUpLease, `{${warmUpLease}}`);
        kept.push(await trialOn(warmLease, () => warmedUp));
      }
    } finally {
      await Promise.all([warm, ...made].map((clients) => clients.close()));
    }
    checkPartitionTrials('cluster partition trials, a client started after the cut', fresh);
    checkPartitionTrials('cluster partition trials, warmed-up clients', kept);
  }, 300_000);
});
