import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { PostgresCheckpointStorage } from '../../runtime/index.js';
import type { CheckpointState } from '../../test/support/linearizability/index.js';
import type { PostgresServerProcess, ReplicatedPostgres } from '../../test/support/postgres/index.js';
import type { ServerFault, ServerFaultKind } from './fault-injector.js';
import type { FailoverRecord } from './sentinel-server-faults.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The PostgreSQL failover faults: the standby's link held (every byte dropped) for two lease times, so every wait for
 * it times out; the primary killed (SIGKILL) and its standby promoted; and a partition: the link held, the lease
 * holder stopped for one and a half lease times so the lease changes hands while the standby hears nothing, then the
 * primary killed and the standby promoted. Each failover reads what the standby holds once its primary is dead and
 * before it is promoted, records it in `failovers`, and makes a new standby of the promoted one before the next fault.
 */
export function postgresFailoverFaults(options: {
  readonly topology: ReplicatedPostgres;
  readonly checkpointTable: string;
  readonly subscriptionIds: readonly string[];
  readonly leaseMs: number;
  readonly leaseHolder: () => ChildProcess | undefined;
  readonly failovers: FailoverRecord[];
}): ReadonlyMap<ServerFaultKind, ServerFault> {
  const { topology, checkpointTable, subscriptionIds, leaseMs, leaseHolder, failovers } = options;
  const failover = async (partitioned: boolean, afterKill: () => void = () => undefined): Promise<boolean> => {
    let snapshot = new Map<string, CheckpointState>();
    // When the primary's processes were signalled: every operation invoked earlier ran there or nowhere.
    let killedAt = 0n;
    const started = performance.now();
    await topology.failOver(async (standby, signalledAt) => {
      killedAt = signalledAt;
      afterKill();
      snapshot = await readSnapshot(standby, checkpointTable, subscriptionIds);
    });
    failovers.push({
      killedAt,
      snapshot,
      snapshotBeforePromotion: true,
      partitioned,
      failoverMs: performance.now() - started,
    });
    await topology.recover();
    return true;
  };
  const standbyHold: ServerFault = async () => {
    // Longer than the stores' waits: grants and conditional writes meanwhile are not confirmed in time.
    topology.link.hold();
    await sleep(2 * leaseMs);
    await topology.waitUntilCaughtUp();
    return true;
  };
  const partitionKill: ServerFault = async () => {
    topology.link.hold();
    // Stopped past its lease: another worker is granted the lease (or, waiting for the standby, refused) meanwhile.
    const holder = leaseHolder();
    const stopped = holder?.kill('SIGSTOP') === true ? holder : undefined;
    await sleep(1.5 * leaseMs);
    return failover(true, () => {
      stopped?.kill('SIGCONT');
    });
  };
  return new Map<ServerFaultKind, ServerFault>([
    ['standby-hold', standbyHold],
    ['primary-kill', () => failover(false)],
    ['primary-partition-kill', partitionKill],
  ]);
}

/**
 * Each subscription's checkpoint and version on `standby`, read once it has replayed all it received from its dead
 * primary: the same replay position in two reads 20 ms apart, at most 5 s.
 */
async function readSnapshot(
  standby: PostgresServerProcess,
  checkpointTable: string,
  subscriptionIds: readonly string[],
): Promise<Map<string, CheckpointState>> {
  const client = new pg.Client({ connectionString: standby.connectionString });
  await client.connect();
  try {
    const deadline = Date.now() + 5_000;
    let previous = '';
    for (;;) {
      const { rows } = await client.query<{ position: string }>(
        "SELECT pg_last_wal_replay_lsn()::text AS position WHERE pg_last_wal_replay_lsn() >= coalesce(pg_last_wal_receive_lsn(), '0/0')",
      );
      const position = rows[0]?.position ?? '';
      if ((position !== '' && position === previous) || Date.now() > deadline) {
        break;
      }
      previous = position;
      await sleep(20);
    }
    const storage = new PostgresCheckpointStorage(client, { table: checkpointTable, waitForStandbys: false });
    const snapshot = new Map<string, CheckpointState>();
    for (const id of subscriptionIds) {
      const checkpoint = await storage.read(id);
      snapshot.set(id, checkpoint === undefined ? undefined : { checkpoint, version: await storage.writeVersion(id) });
    }
    return snapshot;
  } finally {
    await client.end();
  }
}
