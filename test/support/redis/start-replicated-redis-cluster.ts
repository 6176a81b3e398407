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
  /** In a partitionable Cluster, the door of its Cluster bus, which it announces too. */
  readonly busDoor: RedisFrontDoor | undefined;
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
   * Cuts `slot`'s master off from every other node, both ways, on the Cluster bus and on its replica's link, closing
   * nothing (partitionable Clusters only): it goes on answering its clients as the master of its slots, until it
   * notices it lost the majority (`cluster_state:fail`, about a node timeout later). Its replica's link times out on
   * its side at once: it lists no replica. Runs `onCut`, then resolves once the other nodes have promoted its replica
   * (as {@link killMaster} does). The partition holds until {@link recover}.
   */
  partitionMaster(slot: number, onCut?: () => Promise<void>): Promise<ClusterFailoverOutcome>;
  /**
   * Restarts the killed node with its `nodes.conf`, or heals the partition around the cut-off one: the Cluster tells
   * it its slots have a newer owner and it makes itself a replica of the promoted one by itself. Resolves once it
   * replicates through the promoted node's door, acknowledges a `WAIT`, and every node reports `cluster_state:ok`.
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
 * every node reports `cluster_state:ok`. With `partitionable`, each node's Cluster bus goes through a door it announces
 * too, so that {@link ReplicatedRedisCluster.partitionMaster} can cut a master off; off by default, since failure
 * detection then waits on this process. Rejects (never skips) when redis-server or redis-cli is missing; stops what it
 * started on failure. For suites that fail masters over; they belong to the `sentinel` project (doc/testing.md).
 */
export async function startReplicatedRedisCluster(
  options: { readonly partitionable?: boolean } = {},
): Promise<ReplicatedRedisCluster> {
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
      const busDoor = options.partitionable === true ? await RedisFrontDoor.open() : undefined;
      if (busDoor !== undefined) {
        doors.push(busDoor);
      }
      const process = await startRedisServer({
        reserveClusterBusPort: true,
        args: [
          ...replicationTestArgs,
          ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'],
          ...['--cluster-node-timeout', String(clusterNodeTimeoutMs)],
          ...['--cluster-announce-ip', loopbackHost, '--cluster-announce-port', String(door.port)],
          ...(busDoor === undefined ? [] : ['--cluster-announce-bus-port', String(busDoor.port)]),
        ],
      });
      door.aimAt(process.port);
      busDoor?.aimAt(process.port + 10_000);
      servers.push({ host: loopbackHost, port: process.port, process, door, busDoor });
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
  /** A master killed, or cut off by a partition that still holds, and the replica promoted in its place. */
  #killed:
    { readonly node: ClusterDataServer; readonly promoted: ClusterDataServer; readonly cutOff: boolean } | undefined;
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

  killMaster(slot: number): Promise<ClusterFailoverOutcome> {
    return this.#failOver(slot, false, (killed) => {
      killed.process.kill();
      killed.door.heal();
      return Promise.resolve();
    });
  }

  partitionMaster(slot: number, onCut?: () => Promise<void>): Promise<ClusterFailoverOutcome> {
    return this.#failOver(slot, true, async (cutOff) => {
      const others = this.#servers.filter((server) => server !== cutOff);
      const cutOffPeer = `node:${cutOff.door.port}`;
      const isNode = (peer: string | undefined): boolean => peer?.startsWith('node:') === true;
      if (cutOff.busDoor === undefined) {
        throw new Error('partitionMaster(): start the Cluster with partitionable: true.');
      }
      cutOff.busDoor.isolate((peer) => isNode(peer) && peer !== cutOffPeer);
      cutOff.door.isolate((peer) => isNode(peer) && peer !== cutOffPeer);
      for (const other of others) {
        other.busDoor?.isolate((peer) => peer === cutOffPeer);
        other.door.isolate((peer) => peer === cutOffPeer);
      }
      cutOff.door.closeCutReplicationOnServerSide();
      await onCut?.();
    });
  }

  /**
   * Takes `slot`'s master down with `takeDown` (SIGKILL, or a partition that cuts it off: `cutOff`), and resolves once
   * its replica answers as master and every other node names it for the slot.
   */
  async #failOver(
    slot: number,
    cutOff: boolean,
    takeDown: (master: ClusterDataServer) => Promise<void>,
  ): Promise<ClusterFailoverOutcome> {
    if (this.#killed !== undefined) {
      throw new Error('A master was killed or cut off and not recovered yet; call recover() first.');
    }
    const shard = this.shardOf(slot);
    const { master: killed, replica: promoted } = shard;
    const startedAt = performance.now();
    await takeDown(killed);
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
            `${failoverDeadlineMs} ms of taking master ${killed.port} down; the live nodes name ${views.join(', ')} for slot ${shard.firstSlot}.`,
        );
      }
      await sleep(20);
    }
    this.#shards[this.#shards.indexOf(shard)] = { ...shard, master: promoted, replica: killed };
    this.#killed = { node: killed, promoted, cutOff };
    return { killed, promoted, elapsedMs: performance.now() - startedAt };
  }

  async recover(): Promise<void> {
    const killed = this.#killed;
    if (killed === undefined) {
      return;
    }
    if (killed.cutOff) {
      for (const server of this.#servers) {
        server.door.heal();
        server.busDoor?.heal();
      }
    } else {
      await killed.node.process.restart();
    }
    const deadline = Date.now() + rejoinDeadlineMs;
    for (let role = await roleOf(killed.node); !isReplicaOf(role, killed.promoted); role = await roleOf(killed.node)) {
      if (Date.now() > deadline) {
        throw new Error(
          `The node ${killed.node.port} did not make itself a replica of ${killed.promoted.port} (announced as ` +
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
