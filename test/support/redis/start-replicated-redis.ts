import { loopbackHost } from '../free-loopback-port.js';
import { withAdminConnection, type RedisAddress } from './admin-connection.js';
import { startRedisServer, type RedisServerProcess } from './start-redis-server.js';

/** A master and one replica replicating from it, started by {@link startReplicatedRedis}. */
export interface ReplicatedRedisProcess {
  readonly master: RedisServerProcess;
  readonly replica: RedisServerProcess;
  /** Stops both and removes their data dirs. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Arguments every replicating server of the test support gets. A full sync starts at once (Redis 7 waits 5 s by
 * default for more replicas before a diskless one), and a replica announces itself on loopback, so whoever discovers it
 * through the master (a Sentinel) reaches it there.
 */
export const replicationTestArgs: readonly string[] = [
  '--repl-diskless-sync-delay',
  '0',
  '--replica-announce-ip',
  loopbackHost,
];

const syncTimeoutMs = 20_000;

/**
 * Starts a redis-server and a second one replicating from it, both on free loopback ports without persistence, and
 * resolves once the replica's link is up and the master counts it as a connected, online replica. Rejects (never
 * skips) when redis-server is missing; stops what it started on any failure. For suites that need a replica but no
 * failover; Sentinel topologies: `startRedisSentinel`.
 */
export async function startReplicatedRedis(): Promise<ReplicatedRedisProcess> {
  const master = await startRedisServer({ args: replicationTestArgs });
  let replica: RedisServerProcess | undefined;
  const stop = async (): Promise<void> => {
    await Promise.all([master.stop(), replica?.stop()]);
  };
  try {
    replica = await startRedisServer({
      args: [...replicationTestArgs, '--replicaof', master.host, String(master.port)],
    });
    await waitUntilReplicating(master, replica);
  } catch (error) {
    await stop();
    throw error;
  }
  return { master, replica, stop };
}

/**
 * Resolves once `replica` reports its link to its master up, `master` lists it as `state=online` (on `listedPort`,
 * the port it announces: its own unless said), and a `WAIT 1` on the master is answered: only then does a write's
 * `WAIT` find the replica. After a diskless full sync Redis 7 lists a replica online yet sends it no command stream
 * until the replica's first `REPLCONF ACK`, which it sends on its once-a-second timer, so a `WAIT` in that second times
 * out (measured: 3 of 15 fresh pairs, a 500 ms `WAIT`). Rejects after 20 s with both servers' `INFO replication`.
 */
export async function waitUntilReplicating(
  master: RedisAddress,
  replica: RedisAddress,
  listedPort = replica.port,
): Promise<void> {
  const deadline = Date.now() + syncTimeoutMs;
  for (;;) {
    const [replicaInfo, masterInfo] = await Promise.all([
      replicationInfo(replica).catch((error: unknown) => String(error)),
      replicationInfo(master).catch((error: unknown) => String(error)),
    ]);
    if (
      replicaInfo.includes('master_link_status:up') &&
      new RegExp(`^slave\\d+:ip=[^,]*,port=${listedPort},state=online`, 'mu').test(masterInfo) &&
      (await replicaAcknowledges(master))
    ) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Replica ${replica.port} did not come online on master ${master.port} within ${syncTimeoutMs} ms.\n` +
          `replica:\n${replicaInfo}\nmaster:\n${masterInfo}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Whether a replica of `master` acknowledges a write within 100 ms. The write is a `PUBLISH` to a channel nobody
 * listens on: outside Cluster mode Redis replicates it, so it moves the connection's replication offset that `WAIT`
 * counts, and it leaves no key behind for a test to trip over. The test support's pairs have one replica each, so any
 * acknowledgement is this replica's.
 */
async function replicaAcknowledges(master: RedisAddress): Promise<boolean> {
  const acknowledged = await withAdminConnection(master, async (client) => {
    await client.publish('checkpoint-fencing-test-support:replication-probe', 'probe');
    return client.call('WAIT', '1', '100');
  }).catch(() => 0);
  return typeof acknowledged === 'number' && acknowledged >= 1;
}

/** `INFO replication` of the server at `address`, over a connection of its own that is closed afterwards. */
export function replicationInfo(address: RedisAddress): Promise<string> {
  return withAdminConnection(address, (client) => client.info('replication'));
}
