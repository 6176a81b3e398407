import { loopbackHost } from '../free-loopback-port.js';
import { withAdminConnection, type RedisAddress } from './admin-connection.js';
import { RedisFrontDoor } from './redis-front-door.js';
import { redisCli, waitForClusterStateOk } from './start-redis-cluster.js';
import { startRedisServer, type RedisServerProcess } from './start-redis-server.js';
import { replicationTestArgs, waitUntilReplicating } from './start-replicated-redis.js';

/** One node of a {@link ReplicatedRedisCluster}. */
export interface ClusterDataServer {
  readonly host: '127.0.0.1';
  /** The node's own port: the harness talks to it here. */
  readonly port: number;
  readonly process: RedisServerProcess;
  /** The port the node announces to the Cluster: its replica's link and clients go through it. */
  readonly door: RedisFrontDoor;
}

/** A master and its replica, and the slots they serve. */
export interface ClusterShard {
  readonly firstSlot: number;
  readonly lastSlot: number;
  readonly master: ClusterDataServer;
  readonly replica: ClusterDataServer;
}

/** What {@link ReplicatedRedisCluster.killMaster} did. */
export interface ClusterFailoverOutcome {
  readonly killed: ClusterDataServer;
  readonly promoted: ClusterDataServer;
  /** From the SIGKILL until the replica answered as master and every live node named it for the slots. */
  readonly elapsedMs: number;
}

/**
 * Three masters with one replica each on loopback (`cluster-node-timeout` 1000 ms), started by
 * {@link startReplicatedRedisCluster}, with automatic failover. Each node announces the port of a
 * {@link RedisFrontDoor} in front of it (`cluster-announce-port`), so its replica replicates through that door, which
 * can cut the link like a partition (the master still lists the replica online). The Cluster bus stays direct (the
 * announced bus port is still the node's own + 10000), so failure detection and the promotion never wait on this
 * process. Clients go through the doors too, as the Cluster announces them; a door forwards them untouched. An ioredis
 * `natMap` around them would not do: ioredis 5.9 puts the address of a `MOVED` in its slot table unmapped, so after
 * a failover a slot could name a node the client has no connection to until its next slot refresh.
 */
export interface ReplicatedRedisCluster {
  /** Every node's announced address (its door): the start-up nodes of `new Cluster(nodes)`. */
  readonly nodes: readonly RedisAddress[];
  /** The shard serving `slot` now: after {@link killMaster} its master is the promoted replica. */
  shardOf(slot: number): ClusterShard;
  /**
   * From now on drops every byte on the replication link of `slot`'s replica, both ways, closing nothing: its master
   * still lists it `state=online`, and it neither gets the master's writes nor acknowledges them.
   */
  cutReplicationLink(slot: number): void;
  /**
   * SIGKILLs `slot`'s master, ends a cut (closing the cut link, as a partition timing out would), and resolves once the
   * Cluster has promoted its replica on its own: the replica answers `ROLE` as master and every live node's
   * `CLUSTER SLOTS` names it for the shard's slots. The killed node stays down until {@link recover}.
   */
  killMaster(slot: number): Promise<ClusterFailoverOutcome>;
  /**
   * Restarts the killed node with its `nodes.conf`: the Cluster tells it its slots have a newer owner and it makes
   * itself a replica of the promoted one by itself. Resolves once it replicates through the promoted node's door,
   * acknowledges a `WAIT`, and every node reports `cluster_state:ok`.
   */
  recover(): Promise<void>;
  /** Stops every node and door. Idempotent. */
  stop(): Promise<void>;
}

const clusterNodeTimeoutMs = 1_000;
const failoverDeadlineMs = 30_000;
const rejoinDeadlineMs = 30_000;

/**
 * Starts six `redis-server --cluster-enabled yes` nodes, each behind a door it announces, joins them with
 * `redis-cli --cluster create ... --cluster-replicas 1`, and resolves once every master has its replica online and
 * every node reports `cluster_state:ok`. Rejects (never skips) when redis-server or redis-cli is missing; stops what
 * it started on failure. For suites that fail masters over; they belong to the `sentinel` project (doc/testing.md).
 */
export async function startReplicatedRedisCluster(): Promise<ReplicatedRedisCluster> {
  const servers: ClusterDataServer[] = [];
  const doors: RedisFrontDoor[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(servers.map((server) => server.process.stop()));
    await Promise.all(doors.map((door) => door.close()));
  };
  try {
    for (let index = 0; index < 6; index += 1) {
      const door = await RedisFrontDoor.open();
      doors.push(door);
      const process = await startRedisServer({
        reserveClusterBusPort: true,
        args: [
          ...replicationTestArgs,
          ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'],
          ...['--cluster-node-timeout', String(clusterNodeTimeoutMs)],
          ...['--cluster-announce-ip', loopbackHost, '--cluster-announce-port', String(door.port)],
        ],
      });
      door.aimAt(process.port);
      servers.push({ host: loopbackHost, port: process.port, process, door });
    }
    // Real ports here: redis-cli sends CLUSTER MEET to the bus port at the given port + 10000.
    await redisCli([
      '--cluster',
      'create',
      ...servers.map(({ host, port }) => `${host}:${port}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ]);
    const shards = await shardsOnceReplicated(servers);
    for (const shard of shards) {
      await waitUntilReplicating(shard.master, shard.replica);
    }
    await Promise.all(servers.map((server) => waitForClusterStateOk(server)));
    return new RunningReplicatedCluster(servers, shards, stop);
  } catch (error) {
    await stop();
    throw error;
  }
}

class RunningReplicatedCluster implements ReplicatedRedisCluster {
  readonly nodes: readonly RedisAddress[];
  readonly #servers: readonly ClusterDataServer[];
  readonly #shards: ClusterShard[];
  #killed: { readonly node: ClusterDataServer; readonly promoted: ClusterDataServer } | undefined;
  #stopped = false;

  constructor(
    servers: readonly ClusterDataServer[],
    shards: ClusterShard[],
    private readonly stopServers: () => Promise<void>,
  ) {
    this.#servers = servers;
    this.#shards = shards;
    this.nodes = servers.map(({ door }) => ({ host: door.host, port: door.port }));
  }

  shardOf(slot: number): ClusterShard {
    const shard = this.#shards.find(({ firstSlot, lastSlot }) => firstSlot <= slot && slot <= lastSlot);
    if (shard === undefined) {
      throw new Error(`No shard of this Cluster serves slot ${slot}; slots run from 0 to 16383.`);
    }
    return shard;
  }

  cutReplicationLink(slot: number): void {
    this.shardOf(slot).master.door.cutReplication();
  }

  async killMaster(slot: number): Promise<ClusterFailoverOutcome> {
    if (this.#killed !== undefined) {
      throw new Error('killMaster(): the last killed master was not recovered yet; call recover() first.');
    }
    const shard = this.shardOf(slot);
    const { master: killed, replica: promoted } = shard;
    const startedAt = performance.now();
    killed.process.kill();
    killed.door.heal();
    const live = this.#servers.filter((server) => server !== killed);
    const deadline = Date.now() + failoverDeadlineMs;
    for (;;) {
      const views = await Promise.all(live.map((server) => masterPortOfSlot(server, shard.firstSlot)));
      if (views.every((view) => view === promoted.door.port) && (await roleOf(promoted))[0] === 'master') {
        break;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `The Cluster did not promote ${promoted.port} (announced as ${promoted.door.port}) within ` +
            `${failoverDeadlineMs} ms of the SIGKILL of master ${killed.port}; the live nodes name ${views.join(', ')} for slot ${shard.firstSlot}.`,
        );
      }
      await sleep(20);
    }
    this.#shards[this.#shards.indexOf(shard)] = { ...shard, master: promoted, replica: killed };
    this.#killed = { node: killed, promoted };
    return { killed, promoted, elapsedMs: performance.now() - startedAt };
  }

  async recover(): Promise<void> {
    const killed = this.#killed;
    if (killed === undefined) {
      return;
    }
    await killed.node.process.restart();
    const deadline = Date.now() + rejoinDeadlineMs;
    for (let role = await roleOf(killed.node); !isReplicaOf(role, killed.promoted); role = await roleOf(killed.node)) {
      if (Date.now() > deadline) {
        throw new Error(
          `The restarted node ${killed.node.port} did not make itself a replica of ${killed.promoted.port} (announced as ` +
            `${killed.promoted.door.port}) within ${rejoinDeadlineMs} ms; it answers ROLE with ${role.join(' ')}.`,
        );
      }
      await sleep(50);
    }
    await waitUntilReplicating(killed.promoted, killed.node);
    await Promise.all(this.#servers.map((server) => waitForClusterStateOk(server)));
    this.#killed = undefined;
  }

  async stop(): Promise<void> {
    if (this.#stopped) {
      return;
    }
    this.#stopped = true;
    await this.stopServers();
  }
}

/**
 * The three shards, once `CLUSTER SLOTS` lists a replica for each: redis-cli has them replicate only after the
 * nodes met. `CLUSTER SLOTS` names nodes by their announced addresses, the doors.
 */
async function shardsOnceReplicated(servers: readonly ClusterDataServer[]): Promise<ClusterShard[]> {
  const byDoor = new Map(servers.map((server) => [server.door.port, server]));
  const deadline = Date.now() + rejoinDeadlineMs;
  for (;;) {
    const ranges = await withAdminConnection(
      servers[0] as ClusterDataServer,
      async (admin) => (await admin.call('CLUSTER', 'SLOTS')) as [number, number, ...[string, number, string][]][],
    );
    const shards = ranges.flatMap(([firstSlot, lastSlot, master, replica]) => {
      const masterServer = byDoor.get(Number(master?.[1]));
      const replicaServer = byDoor.get(Number(replica?.[1]));
      return masterServer === undefined || replicaServer === undefined
        ? []
        : [{ firstSlot, lastSlot, master: masterServer, replica: replicaServer }];
    });
    if (shards.length === 3) {
      return shards.sort((one, other) => one.firstSlot - other.firstSlot);
    }
    if (Date.now() > deadline) {
      throw new Error(
        `The Cluster did not list a replica for each of its three slot ranges within ${rejoinDeadlineMs} ms: ` +
          `CLUSTER SLOTS answers ${JSON.stringify(ranges)}.`,
      );
    }
    await sleep(50);
  }
}

/** The announced port of the master `server` names for `slot`, or what went wrong asking. */
function masterPortOfSlot(server: ClusterDataServer, slot: number): Promise<number | string> {
  return withAdminConnection(server, async (admin) => {
    const ranges = (await admin.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
    const range = ranges.find(([first, last]) => first <= slot && slot <= last);
    return range?.[2][1] ?? 'none';
  }).catch((error: unknown) => String(error));
}

/** `ROLE` of `server`, or what went wrong asking. */
function roleOf(server: RedisAddress): Promise<string[]> {
  return withAdminConnection(server, async (admin) => ((await admin.call('ROLE')) as unknown[]).map(String)).catch(
    (error: unknown) => [String(error)],
  );
}

/** Whether a `ROLE` reply says: a replica of `master`, through its door. */
function isReplicaOf(role: readonly string[], master: ClusterDataServer): boolean {
  return role[0] === 'slave' && role[2] === String(master.door.port);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
