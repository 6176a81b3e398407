import type { ChildProcess } from 'node:child_process';
import { RedisCheckpointStorage } from '../../runtime/index.js';
import type { CheckpointState } from '../../test/support/linearizability/index.js';
import {
  replicationInfo,
  withAdminConnection,
  type RedisSentinelTopology,
  type SentinelDataServer,
} from '../../test/support/redis/index.js';
import type { ServerFault, ServerFaultKind } from './fault-injector.js';

/** One failover the soak drove, and what the promoted replica held when its master died. */
export interface FailoverRecord {
  /**
   * `process.hrtime.bigint()` right before the master's SIGKILL: every operation invoked earlier ran on the old master
   * (or nowhere), every later one on the promoted master (or nowhere).
   */
  readonly killedAt: bigint;
  /** Each subscription's checkpoint and version on the replica, read after its master died and before its promotion. */
  readonly snapshot: ReadonlyMap<string, CheckpointState>;
  /** False when the replica was already promoted by the time it was read: the snapshot may hold later writes. */
  readonly snapshotBeforePromotion: boolean;
  /** Whether the replication link was cut when the master died. */
  readonly partitioned: boolean;
  /** From the SIGKILL until every Sentinel named the new master. */
  readonly failoverMs: number;
  /**
   * A partition that kept the old master running in a minority (`--partition`): the workers on its side, and when
   * their connections to it were closed after it healed. Their calls in between went to the cut-off master, or failed.
   */
  readonly minority?: { readonly workers: readonly string[]; readonly until: bigint };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The Sentinel faults: a replica stopped (SIGSTOP) for two lease times, so every wait for it times out; the master
 * killed (SIGKILL) and failed over; and a partition: the replication links cut, the lease holder stopped for one and a
 * half lease times so the lease changes hands while the replicas hear nothing, then the master killed; with
 * `deposedMaster`, also the master stopped (SIGSTOP) until the Sentinels promote a replica, then continued, so it
 * serves the clients still connected to it as a master with no replica until the Sentinels make it a replica, 10–20 s
 * later (a master too slow for its Sentinels); with `minorityWorkers` (`--partition`, two replicas), also the master,
 * one replica and one Sentinel cut off from the rest, the workers named there on their side, for two lease times after
 * the majority promoted the other replica. Each failover reads what the replica to be promoted holds before the
 * Sentinels promote it, records it in `failovers`, and makes the old master a replica (restarted when killed) before
 * the next fault.
 */
export function sentinelServerFaults(options: {
  readonly topology: RedisSentinelTopology;
  readonly subscriptionIds: readonly string[];
  readonly leaseMs: number;
  /** Whether the master-pause fault is among them (`--deposed-master`). */
  readonly deposedMaster: boolean;
  /** With the minority-partition fault (`--partition`): the workers on the cut-off master's side. */
  readonly minorityWorkers: readonly string[] | undefined;
  readonly leaseHolder: () => ChildProcess | undefined;
  readonly failovers: FailoverRecord[];
}): ReadonlyMap<ServerFaultKind, ServerFault> {
  const { topology, subscriptionIds, leaseMs, deposedMaster, minorityWorkers, leaseHolder, failovers } = options;
  const failover = async (
    how: 'kill' | 'pause',
    partitioned: boolean,
    afterKill: () => void = () => undefined,
  ): Promise<boolean> => {
    let snapshots: Snapshots = new Map();
    const killedAt = process.hrtime.bigint();
    const onDown = async (replicas: readonly SentinelDataServer[]): Promise<void> => {
      afterKill();
      snapshots = await readSnapshots(replicas, subscriptionIds, how === 'kill' ? linkDown : streamDrained);
    };
    const outcome = await (how === 'kill' ? topology.killMaster(onDown) : topology.pauseMaster(onDown));
    failovers.push({
      killedAt,
      ...snapshotOf(snapshots, outcome.promoted),
      partitioned,
      failoverMs: outcome.elapsedMs,
    });
    await topology.recover();
    return true;
  };
  const replicaPause: ServerFault = async () => {
    // Longer than the storages' WAIT timeout: writes and grants meanwhile are not acknowledged in time.
    const { process: replica } = topology.replica();
    replica.pause();
    await sleep(2 * leaseMs);
    replica.resume();
    return true;
  };
  const masterKill: ServerFault = () => failover('kill', false);
  const masterPause: ServerFault = () => failover('pause', false);
  const partitionKill: ServerFault = async () => {
    await topology.cutReplicationLink();
    // Stopped past its lease: another worker is granted the lease (or, waiting for the replica, refused) during the cut.
    const holder = leaseHolder();
    const stopped = holder?.kill('SIGSTOP') === true ? holder : undefined;
    await sleep(1.5 * leaseMs);
    return failover('kill', true, () => {
      stopped?.kill('SIGCONT');
    });
  };
  const faults = new Map<ServerFaultKind, ServerFault>([
    ['replica-pause', replicaPause],
    ['master-kill', masterKill],
    ['partition-kill', partitionKill],
  ]);
  if (deposedMaster) {
    faults.set('master-pause', masterPause);
  }
  if (minorityWorkers !== undefined) {
    faults.set('minority-partition', async () => {
      let snapshots: Snapshots = new Map();
      const killedAt = process.hrtime.bigint();
      const outcome = await topology.partitionMaster({
        withMaster: topology.replicas().slice(0, 1),
        sentinelsWithMaster: 1,
        onCut: async (majorityReplicas) => {
          // Nothing reaches them from now on: what they hold once their streams are applied is what one promoted has.
          snapshots = await readSnapshots(majorityReplicas, subscriptionIds, streamDrained);
        },
      });
      // The majority takes the leases over while the minority's workers go on trying on the cut-off master.
      await sleep(2 * leaseMs);
      await topology.recover();
      topology.disconnectClients('minority');
      failovers.push({
        killedAt,
        ...snapshotOf(snapshots, outcome.promoted),
        partitioned: true,
        failoverMs: outcome.elapsedMs,
        minority: { workers: minorityWorkers, until: process.hrtime.bigint() },
      });
      return true;
    });
  }
  return faults;
}

/** What each replica held once its master was gone, by replica, and whether it was still a replica after the reads. */
type Snapshots = Map<SentinelDataServer, readonly [Map<string, CheckpointState>, boolean]>;

/** The snapshot of the replica that was `promoted`; none when it was not read. */
function snapshotOf(
  snapshots: Snapshots,
  promoted: SentinelDataServer,
): Pick<FailoverRecord, 'snapshot' | 'snapshotBeforePromotion'> {
  const [snapshot, snapshotBeforePromotion] = snapshots.get(promoted) ?? [new Map<string, CheckpointState>(), false];
  return { snapshot, snapshotBeforePromotion };
}

/** {@link readSnapshot} of each of `replicas`, read side by side: any of them may be the one promoted. */
async function readSnapshots(
  replicas: readonly SentinelDataServer[],
  subscriptionIds: readonly string[],
  settled: (replica: SentinelDataServer) => Promise<void>,
): Promise<Snapshots> {
  const read = await Promise.all(replicas.map((replica) => readSnapshot(replica, subscriptionIds, settled)));
  return new Map(replicas.map((replica, index) => [replica, read[index] ?? [new Map(), false]]));
}

/**
 * What `replica` holds for every subscription once it has applied all its master will ever send it (`settled`: its
 * link reads down after a kill, its stream drained after a stop or a cut), and whether it was still a replica after
 * the reads: the Sentinels promote one half a second later at the earliest, and only from then on can anyone write to it.
 */
async function readSnapshot(
  replica: SentinelDataServer,
  subscriptionIds: readonly string[],
  settled: (replica: SentinelDataServer) => Promise<void>,
): Promise<readonly [Map<string, CheckpointState>, boolean]> {
  await settled(replica);
  return withAdminConnection(replica, async (admin) => {
    const storage = new RedisCheckpointStorage(admin, { waitForReplicas: false });
    const snapshot = new Map<string, CheckpointState>();
    for (const id of subscriptionIds) {
      const checkpoint = await storage.read(id);
      snapshot.set(id, checkpoint === undefined ? undefined : { checkpoint, version: await storage.writeVersion(id) });
    }
    const stillReplica = /^role:slave\r?$/mu.test(await admin.info('replication'));
    return [snapshot, stillReplica];
  });
}

/** Resolves once `replica` reads its link down (it has applied all its killed master sent), or after 5 s. */
async function linkDown(replica: SentinelDataServer): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!/master_link_status:down/u.test(await replicationInfo(replica)) && Date.now() < deadline) {
    await sleep(5);
  }
}

/**
 * Resolves once `replica` has applied every byte it read from its stopped (or cut-off) master, the same in two reads
 * 20 ms apart, or after 5 s. Such a master keeps the link open, so it never reads down; whatever the replica
 * acknowledged it had applied before, and nothing more comes.
 */
async function streamDrained(replica: SentinelDataServer): Promise<void> {
  const deadline = Date.now() + 5_000;
  let previous = '';
  for (;;) {
    const info = await replicationInfo(replica);
    const read = /^slave_read_repl_offset:(\d+)\r?$/mu.exec(info)?.[1];
    const applied = /^slave_repl_offset:(\d+)\r?$/mu.exec(info)?.[1];
    if ((read === applied && `${read}` === previous) || Date.now() > deadline) {
      return;
    }
    previous = read === applied ? `${read}` : '';
    await sleep(20);
  }
}
