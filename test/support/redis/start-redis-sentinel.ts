import { randomBytes } from 'node:crypto';
import { loopbackHost } from '../free-loopback-port.js';
import { withAdminConnection, type RedisAddress } from './admin-connection.js';
import { RedisFrontDoor } from './redis-front-door.js';
import { startRedisServer, type RedisServerProcess } from './start-redis-server.js';
import { replicationInfo, replicationTestArgs, waitUntilReplicating } from './start-replicated-redis.js';

/** One of the data servers of a {@link RedisSentinelTopology}. */
export interface SentinelDataServer {
  readonly host: '127.0.0.1';
  /** Its own port: the harness talks to it here. */
  readonly port: number;
  /** The redis-server process: kill, pause, resume it here. */
  readonly process: RedisServerProcess;
  /** The door in front of it: a cut replication link goes through it; in a partitionable topology, everything does. */
  readonly door: RedisFrontDoor;
  /** The port the Sentinels and the other servers know it by: its door's in a partitionable topology, else its own. */
  readonly announcedPort: number;
}

/** What a failover driven by {@link RedisSentinelTopology.killMaster} or one of its kind did. */
export interface FailoverOutcome {
  /** The master the failover replaced: killed, stopped and continued, or cut off in a minority and still running. */
  readonly killed: SentinelDataServer;
  readonly promoted: SentinelDataServer;
  /** From the SIGKILL (SIGSTOP, cut) until every Sentinel (of the majority) named the promoted server as master. */
  readonly elapsedMs: number;
}

/**
 * A side of a partition made by {@link RedisSentinelTopology.partitionMaster}: the master's, or the other. A client is
 * on a side when it reaches the Sentinels through {@link RedisSentinelTopology.sentinelOptionsOn} and its
 * `connectionName` starts with the side's name; a client named otherwise reaches every server on both sides.
 */
export type PartitionSide = 'minority' | 'majority';

const partitionSides: readonly PartitionSide[] = ['minority', 'majority'];

/** Options of {@link startRedisSentinel}. */
export interface StartRedisSentinelOptions {
  /** How many replicas the master starts with; 1 by default. */
  readonly replicas?: number;
  /**
   * Puts every data server and Sentinel behind a door it announces, so that {@link RedisSentinelTopology.partitionMaster}
   * can cut any of them off from the others. Off by default: every Sentinel ping then goes through this process, and a
   * busy test process made Sentinels count healthy masters down (doc/testing.md).
   */
  readonly partitionable?: boolean;
}

/**
 * A master, its replicas and three Sentinels on loopback (down-after 500 ms, 1 s when partitionable; quorum 2), started by
 * {@link startRedisSentinel}. By default Sentinels, clients and replicas reach the servers directly, and to cut a
 * replica's link like a partition, the replica is first moved onto a {@link RedisFrontDoor} in front of its master; in
 * a partitionable topology every connection goes through doors.
 */
export interface RedisSentinelTopology {
  readonly masterName: string;
  /** The Sentinels' addresses, as clients reach them (their doors, in a partitionable topology). */
  readonly sentinels: readonly RedisAddress[];
  /** What `new Redis(...)` (ioredis 5 or 6) takes to find the master through the Sentinels. */
  readonly sentinelOptions: SentinelOptions;
  /**
   * {@link sentinelOptions} for a client on one side of a partition: it reaches the Sentinels through doors of that
   * side, so that while the master is cut off it asks only the Sentinels on its side. Partitionable topologies only.
   */
  sentinelOptionsOn(side: PartitionSide): SentinelOptions;
  /** The data server the Sentinels name as master (after a failover: the promoted one). */
  master(): SentinelDataServer;
  /** The first of {@link replicas}. */
  replica(): SentinelDataServer;
  /** The other data servers: the replicas, and a killed master until {@link recover}. */
  replicas(): readonly SentinelDataServer[];
  /**
   * Drops every byte on the replicas' links to the master from now on, both ways, closing nothing: the master still
   * counts them, and they neither get its writes nor acknowledge them. Outside a partitionable topology each replica's
   * link is moved onto the master's door first (a partial resync): a Sentinel notices a replica replicating from
   * another address than the master's only at its `INFO` of the replica (every 10 s while the link is up) and moves it
   * back at a later one, so a cut holds for several seconds.
   */
  cutReplicationLink(): Promise<void>;
  /** Ends the cut: the replicas replicate from the master directly again, and have caught up when this resolves. */
  healReplicationLink(): Promise<void>;
  /**
   * SIGKILLs the master, ends a cut (a partition that outlived the master), runs `onKilled` with the replicas (their
   * data is frozen there: their master is dead and nothing is promoted before Sentinels agree, at least 500 ms later), then
   * resolves once every Sentinel names a replica as master and it answers as one. The killed server stays down until
   * {@link recover}. A replica paused with SIGSTOP must be resumed inside `onKilled`.
   */
  killMaster(onKilled?: (replicas: readonly SentinelDataServer[]) => Promise<void>): Promise<FailoverOutcome>;
  /**
   * SIGSTOPs the master, runs `onStopped` (the replicas' data is frozen as with {@link killMaster}), waits until every
   * Sentinel names a replica as master and it answers as one, then continues the old master (SIGCONT): a master too
   * slow for its Sentinels, deposed while it lives. It answers its clients as a master, with no replica, until the
   * Sentinels reach it and make it a replica of the new one, which discards whatever it acknowledged meanwhile.
   * {@link recover} then waits until it replicates from the new master.
   */
  pauseMaster(onStopped?: (replicas: readonly SentinelDataServer[]) => Promise<void>): Promise<FailoverOutcome>;
  /**
   * Cuts the master, the replicas `withMaster` and the first `sentinelsWithMaster` Sentinels off from the others, both
   * ways, closing nothing (partitionable topologies only): the minority keeps its master, which goes on answering its
   * clients as one. Runs `onCut` with the replicas on the other side (their data is frozen: nothing reaches them, and
   * nothing is promoted before the majority's Sentinels agree, at least 500 ms later), then resolves once every
   * Sentinel of the majority names one of them as master and it answers as one. The partition holds until
   * {@link recover}, which heals it and makes the minority's servers replicas of the new master.
   */
  partitionMaster(options: {
    readonly withMaster: readonly SentinelDataServer[];
    readonly sentinelsWithMaster: number;
    readonly onCut?: (majorityReplicas: readonly SentinelDataServer[]) => Promise<void>;
  }): Promise<FailoverOutcome>;
  /**
   * The links cut off from a master still running in a minority time out on its side: it drops those replicas (what
   * its `repl-timeout` does after 60 s), and lists only the ones on its side. Their side of the links stays silent.
   */
  dropCutReplicas(): void;
  /**
   * Closes the connections of the clients on `side` (their connection name starts with it) through every door: they
   * find the master through the Sentinels again, as clients that learnt of a healed partition would.
   */
  disconnectClients(side: PartitionSide): void;
  /**
   * Restarts the killed server as a replica of the master through the master's door, so that
   * {@link cutReplicationLink} cuts it at once, and resolves once the master lists it online and it acknowledges a
   * `WAIT`, without waiting for the Sentinels to see it: a replica that has just attached.
   */
  rejoinThroughDoor(): Promise<void>;
  /**
   * Heals a partition, restarts a killed server as a replica of the master, and waits until a stopped or cut-off master
   * and its minority's replicas replicate from the master too (made replicas by the harness at once, as the Sentinels
   * would at their next `INFO` of them, 10–20 s later), then until {@link waitUntilStable} holds. With
   * `followSpontaneousFailover`, a failover the Sentinels made on their own meanwhile (a loaded machine can stall the
   * master past the 500 ms down-after) is adopted once it has settled, instead of timing out: for suites that only
   * need a stable topology again, never for the soak, whose faults are aimed by role.
   */
  recover(options?: { readonly followSpontaneousFailover?: boolean }): Promise<void>;
  /**
   * Resolves once every replica is online on the master and every Sentinel names the master, sees it up, knows the two
   * other Sentinels and every replica, and reads each replica's link as up: a failover can start from here.
   */
  waitUntilStable(): Promise<void>;
  /** Stops the Sentinels, then the doors and the servers. Idempotent. */
  stop(): Promise<void>;
}

/** What `new Redis(...)` takes to find the master through Sentinels. */
export interface SentinelOptions {
  readonly sentinels: readonly { readonly host: string; readonly port: number }[];
  readonly name: string;
}

/** One Sentinel: its process, the ID it names its links with, and its doors in a partitionable topology. */
interface SentinelNode {
  readonly process: RedisServerProcess;
  readonly id: string;
  /** The door other Sentinels and default clients reach it through (it announces its port); none outside partitionable topologies. */
  readonly door: RedisFrontDoor | undefined;
  /** Doors for clients of either side of a partition. */
  readonly clientDoors: Readonly<Record<PartitionSide, RedisFrontDoor>> | undefined;
}

const masterName = 'checkpoint-fencing';
const downAfterMs = 500;
/**
 * The down-after of a partitionable topology: its Sentinels' pings go through this process, which under load (a soak's
 * workers through the same doors, other jobs on the cores) can hold one up past 500 ms and start a failover of a
 * healthy master.
 */
const partitionableDownAfterMs = 1_000;
/**
 * Also how long a Sentinel waits before it tries again after a failover it could not finish (twice this: a split
 * vote, which a loaded machine makes likelier, costs 4 s), and at least how long after it noticed a replica
 * replicating from another address than the master's (a cut link) it moves the replica back. It notices and acts only
 * on its `INFO` of the replica, every 10 s while the replica's link is up, so a cut holds for several seconds.
 */
const failoverTimeoutMs = 2_000;
const stableTimeoutMs = 30_000;
const failoverDeadlineMs = 30_000;
const conversionDeadlineMs = 60_000;

/**
 * Starts a Sentinel topology: a redis-server and `replicas` replicas of it (with {@link replicationTestArgs}), each with
 * a {@link RedisFrontDoor} for cutting links, then three Sentinels monitoring the master with quorum 2, down-after
 * 500 ms (1 s when partitionable) and `announce-ip 127.0.0.1`, and resolves once {@link RedisSentinelTopology.waitUntilStable} holds.
 * Everything binds and announces 127.0.0.1 only. Outside a partitionable topology, Sentinels and clients reach the
 * servers directly, never through this process: a busy test process cannot make a Sentinel think a server is down.
 * Rejects (never skips) when redis-server is missing; stops what it started on failure. Suites that kill masters keep
 * a topology of their own (doc/testing.md).
 */
export async function startRedisSentinel(options: StartRedisSentinelOptions = {}): Promise<RedisSentinelTopology> {
  const partitionable = options.partitionable === true;
  const started: { stop(): Promise<void> }[] = [];
  try {
    const doors = await Promise.all(Array.from({ length: 1 + (options.replicas ?? 1) }, () => openDoor(started)));
    const announced = (door: RedisFrontDoor, port: number): number => (partitionable ? door.port : port);
    const servers: SentinelDataServer[] = [];
    for (const door of doors) {
      const master = servers[0];
      const process = await startRedisServer({
        args: [
          ...replicationTestArgs,
          ...(partitionable ? ['--replica-announce-port', String(door.port)] : []),
          ...(master === undefined ? [] : ['--replicaof', loopbackHost, String(master.announcedPort)]),
        ],
      });
      started.push(process);
      door.aimAt(process.port);
      servers.push({
        host: loopbackHost,
        port: process.port,
        process,
        door,
        announcedPort: announced(door, process.port),
      });
    }
    const sentinels: SentinelNode[] = [];
    for (let index = 0; index < 3; index += 1) {
      const id = randomBytes(20).toString('hex');
      const door = partitionable ? await openDoor(started) : undefined;
      const clientDoors = partitionable
        ? { minority: await openDoor(started), majority: await openDoor(started) }
        : undefined;
      const process = await startRedisServer({
        configText: sentinelConfig(servers, id, door, partitionable ? partitionableDownAfterMs : downAfterMs),
        args: ['--sentinel'],
      });
      started.push(process);
      if (partitionable) {
        // Every second rather than every 10 s: a server made a replica after a partition healed is seen as one (and the
        // Sentinels learn of each other) in a second or two. Nothing here moves a replica's link onto another address
        // that the Sentinels would move back as soon as they see it.
        await withAdminConnection(process, (admin) =>
          admin.call('SENTINEL', 'DEBUG', 'info-period', '1000', 'publish-period', '500'),
        );
      }
      for (const sentinelDoor of [door, clientDoors?.minority, clientDoors?.majority]) {
        sentinelDoor?.aimAt(process.port);
      }
      sentinels.push({ process, id, door, clientDoors });
    }
    const [master, ...replicas] = servers as [SentinelDataServer, ...SentinelDataServer[]];
    const topology = new SentinelTopology(master, replicas, sentinels, started);
    await topology.waitUntilStable();
    return topology;
  } catch (error) {
    // Sentinels first, so none of them reacts to the servers going away.
    await Promise.all(started.reverse().map((part) => part.stop()));
    throw error;
  }
}

async function openDoor(started: { stop(): Promise<void> }[]): Promise<RedisFrontDoor> {
  const door = await RedisFrontDoor.open();
  started.push({ stop: () => door.close() });
  return door;
}

function sentinelConfig(
  servers: readonly SentinelDataServer[],
  id: string,
  door: RedisFrontDoor | undefined,
  downAfter: number,
): string {
  const [master, ...replicas] = servers;
  return [
    'sentinel resolve-hostnames no',
    `sentinel announce-ip ${loopbackHost}`,
    ...(door === undefined ? [] : [`sentinel announce-port ${door.port}`]),
    `sentinel myid ${id}`,
    `sentinel monitor ${masterName} ${loopbackHost} ${master?.announcedPort} 2`,
    `sentinel down-after-milliseconds ${masterName} ${downAfter}`,
    `sentinel failover-timeout ${masterName} ${failoverTimeoutMs}`,
    `sentinel parallel-syncs ${masterName} 1`,
    // Known from the start: a Sentinel would otherwise learn of a replica from the master's INFO, every 10 s.
    ...replicas.map(({ announcedPort }) => `sentinel known-replica ${masterName} ${loopbackHost} ${announcedPort}`),
    '',
  ].join('\n');
}

class SentinelTopology implements RedisSentinelTopology {
  readonly masterName = masterName;
  readonly sentinels: readonly RedisAddress[];
  readonly sentinelOptions: SentinelOptions;
  #master: SentinelDataServer;
  #replicas: SentinelDataServer[];
  #killed: SentinelDataServer | undefined;
  /**
   * Servers the Sentinels deposed while they lived, and how: a stopped master, converted by the Sentinels themselves;
   * a partition's minority, made replicas by {@link recover} at once.
   */
  #deposed: { readonly servers: readonly SentinelDataServer[]; readonly by: 'pause' | 'partition' } | undefined;
  /** Whether a partition made by {@link partitionMaster} holds. */
  #partitioned = false;
  #stopped = false;

  constructor(
    master: SentinelDataServer,
    replicas: SentinelDataServer[],
    private readonly sentinelNodes: readonly SentinelNode[],
    private readonly started: readonly { stop(): Promise<void> }[],
  ) {
    this.#master = master;
    this.#replicas = replicas;
    this.sentinels = sentinelNodes.map(({ process, door }) => ({
      host: loopbackHost,
      port: door?.port ?? process.port,
    }));
    this.sentinelOptions = { sentinels: this.sentinels.map(({ host, port }) => ({ host, port })), name: masterName };
  }

  sentinelOptionsOn(side: PartitionSide): SentinelOptions {
    return {
      sentinels: this.sentinelNodes.map(({ clientDoors }) => {
        if (clientDoors === undefined) {
          throw new Error('sentinelOptionsOn(): start the topology with partitionable: true.');
        }
        return { host: loopbackHost, port: clientDoors[side].port };
      }),
      name: masterName,
    };
  }

  master(): SentinelDataServer {
    return this.#master;
  }

  replica(): SentinelDataServer {
    const [first] = this.#replicas;
    if (first === undefined) {
      throw new Error('The topology has no replica.');
    }
    return first;
  }

  replicas(): readonly SentinelDataServer[] {
    return this.#replicas;
  }

  async cutReplicationLink(): Promise<void> {
    const master = this.#master;
    if (master.announcedPort === master.port) {
      await Promise.all(this.#replicas.map((replica) => this.#replicateFrom(replica, master.door.port)));
    }
    master.door.cutReplication();
  }

  async healReplicationLink(): Promise<void> {
    const master = this.#master;
    master.door.heal();
    await Promise.all(this.#replicas.map((replica) => this.#replicateFrom(replica, master.announcedPort)));
  }

  /** Points `replica` at `port` (the master itself, or its door) and waits until it replicates through it. */
  async #replicateFrom(replica: SentinelDataServer, port: number): Promise<void> {
    await withAdminConnection(replica, (admin) => admin.replicaof(loopbackHost, port));
    await waitUntilReplicating({ host: loopbackHost, port }, replica, replica.announcedPort);
  }

  killMaster(onKilled?: (replicas: readonly SentinelDataServer[]) => Promise<void>): Promise<FailoverOutcome> {
    return this.#failOver('kill', onKilled);
  }

  pauseMaster(onStopped?: (replicas: readonly SentinelDataServer[]) => Promise<void>): Promise<FailoverOutcome> {
    return this.#failOver('pause', onStopped);
  }

  /** Kills or stops the master, runs `onDown`, and resolves once a replica is promoted (continuing a stopped master). */
  async #failOver(
    how: 'kill' | 'pause',
    onDown: ((replicas: readonly SentinelDataServer[]) => Promise<void>) | undefined,
  ): Promise<FailoverOutcome> {
    if (this.#killed !== undefined || this.#partitioned) {
      throw new Error(`${how}Master(): the last failover was not recovered from yet; call recover() first.`);
    }
    const old = this.#master;
    const startedAt = performance.now();
    if (how === 'kill') {
      old.process.kill();
      old.door.heal();
    } else {
      old.process.pause();
    }
    let promoted: SentinelDataServer;
    try {
      await onDown?.(this.#replicas);
      promoted = await this.#promotedAmong(
        this.#replicas,
        this.#sentinelAddresses(),
        `the ${how} of master ${old.port}`,
      );
    } finally {
      if (how === 'pause') {
        old.process.resume();
      }
    }
    this.#becomeMaster(promoted, old);
    if (how === 'kill') {
      this.#killed = old;
    } else {
      this.#deposed = { servers: [old], by: 'pause' };
    }
    return { killed: old, promoted, elapsedMs: performance.now() - startedAt };
  }

  async partitionMaster(options: {
    readonly withMaster: readonly SentinelDataServer[];
    readonly sentinelsWithMaster: number;
    readonly onCut?: (majorityReplicas: readonly SentinelDataServer[]) => Promise<void>;
  }): Promise<FailoverOutcome> {
    if (this.#killed !== undefined || this.#partitioned) {
      throw new Error('partitionMaster(): the last failover was not recovered from yet; call recover() first.');
    }
    const old = this.#master;
    const minorityServers = [old, ...options.withMaster];
    const minoritySentinels = this.sentinelNodes.slice(0, options.sentinelsWithMaster);
    const majorityReplicas = this.#replicas.filter((replica) => !minorityServers.includes(replica));
    const minority = new Set([
      ...minorityServers.map(({ announcedPort }) => `node:${announcedPort}`),
      ...minoritySentinels.map(({ id }) => `sentinel:${id.slice(0, 8)}`),
    ]);
    // A client is on the side its connection name starts with; one named otherwise, or unnamed, reaches both.
    const sideOf = (peer: string | undefined): PartitionSide | undefined =>
      peer === undefined
        ? undefined
        : peer.startsWith('client:')
          ? partitionSides.find((side) => peer.startsWith(`client:${side}`))
          : minority.has(peer)
            ? 'minority'
            : 'majority';
    const startedAt = performance.now();
    this.#partitioned = true;
    const cutFrom = (side: PartitionSide) => (peer: string | undefined) => {
      const peerSide = sideOf(peer);
      return peerSide !== undefined && peerSide !== side;
    };
    for (const server of [old, ...this.#replicas]) {
      server.door.isolate(cutFrom(minorityServers.includes(server) ? 'minority' : 'majority'));
    }
    for (const sentinel of this.sentinelNodes) {
      const side = minoritySentinels.includes(sentinel) ? 'minority' : 'majority';
      if (sentinel.door === undefined || sentinel.clientDoors === undefined) {
        throw new Error('partitionMaster(): start the topology with partitionable: true.');
      }
      sentinel.door.isolate(cutFrom(side));
      sentinel.clientDoors[side === 'minority' ? 'majority' : 'minority'].isolate(() => true);
    }
    await options.onCut?.(majorityReplicas);
    const majoritySentinels = this.sentinelNodes
      .filter((sentinel) => !minoritySentinels.includes(sentinel))
      .map(({ process }) => process);
    const promoted = await this.#promotedAmong(
      majorityReplicas,
      majoritySentinels,
      `the partition of master ${old.port}`,
    );
    this.#becomeMaster(promoted, old);
    this.#deposed = { servers: minorityServers, by: 'partition' };
    return { killed: old, promoted, elapsedMs: performance.now() - startedAt };
  }

  dropCutReplicas(): void {
    if (this.#deposed?.by !== 'partition') {
      throw new Error('dropCutReplicas(): no master is cut off in a minority; call partitionMaster() first.');
    }
    this.#deposed.servers[0]?.door.closeCutReplicationOnServerSide();
  }

  /** `promoted` is master, `old` one of the replicas, in the order they were. */
  #becomeMaster(promoted: SentinelDataServer, old: SentinelDataServer): void {
    this.#replicas = [...this.#replicas.filter((replica) => replica !== promoted), old];
    this.#master = promoted;
  }

  /** The one of `candidates` that every Sentinel of `judges` names as master and that answers as one. */
  async #promotedAmong(
    candidates: readonly SentinelDataServer[],
    judges: readonly RedisAddress[],
    after: string,
  ): Promise<SentinelDataServer> {
    const deadline = Date.now() + failoverDeadlineMs;
    for (;;) {
      const views = await Promise.all(judges.map((sentinel) => masterAddressSeenBy(sentinel)));
      const named = candidates.find(({ announcedPort }) => views.every((view) => view === String(announcedPort)));
      if (named !== undefined && (await roleOf(named)) === 'master') {
        return named;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `The Sentinels did not promote any of ${candidates.map(({ port }) => port).join(', ')} within ` +
            `${failoverDeadlineMs} ms of ${after}; they name ${views.join(', ')}.`,
        );
      }
      await sleep(20);
    }
  }

  disconnectClients(side: PartitionSide): void {
    for (const door of this.#doors()) {
      door.closeClients((peer) => peer.startsWith(`client:${side}`));
    }
  }

  async rejoinThroughDoor(): Promise<void> {
    const killed = this.#killed;
    if (killed === undefined) {
      throw new Error('rejoinThroughDoor(): no server was killed; call killMaster() first.');
    }
    const door = this.#master.door;
    await killed.process.restart(['--replicaof', loopbackHost, String(door.port)]);
    this.#killed = undefined;
    await waitUntilReplicating(door, killed, killed.announcedPort);
  }

  async recover(options?: { readonly followSpontaneousFailover?: boolean }): Promise<void> {
    if (this.#partitioned) {
      for (const door of this.#doors()) {
        door.heal();
      }
      this.#partitioned = false;
    }
    const killed = this.#killed;
    if (killed !== undefined) {
      await this.#sentinelsReachTheNewMaster();
      await killed.process.restart(['--replicaof', loopbackHost, String(this.#master.announcedPort)]);
      this.#killed = undefined;
    }
    for (const deposed of this.#deposed?.servers ?? []) {
      await (this.#deposed?.by === 'pause' ? this.#convertedByTheSentinels(deposed) : this.#convert(deposed));
    }
    this.#deposed = undefined;
    await this.#settle(options?.followSpontaneousFailover === true);
  }

  /**
   * Resolves once `deposed` answers as a replica. The Sentinels convert a master they replaced only at their next
   * `INFO` of it, sent every 10 s to an instance they list as a replica, and it then syncs: 10–20 s measured, longer
   * than `#settle` waits, so this has a deadline of its own.
   */
  async #convertedByTheSentinels(deposed: SentinelDataServer): Promise<void> {
    const deadline = Date.now() + conversionDeadlineMs;
    for (let role = await roleOf(deposed); role !== 'slave'; role = await roleOf(deposed)) {
      if (Date.now() > deadline) {
        throw new Error(
          `The Sentinels did not make the deposed master ${deposed.port} a replica within ${conversionDeadlineMs} ms; ` +
            `it answers ROLE with ${role}.`,
        );
      }
      await sleep(100);
    }
  }

  /**
   * Makes `deposed` a replica of the master, as the Sentinels would at their next `INFO` of it, 10–20 s later, and
   * resolves once it answers as one. The Sentinels send the same `REPLICAOF` later, which changes nothing then.
   */
  async #convert(deposed: SentinelDataServer): Promise<void> {
    const master = String(this.#master.announcedPort);
    const deadline = Date.now() + conversionDeadlineMs;
    for (;;) {
      await withAdminConnection(deposed, (admin) => admin.replicaof(loopbackHost, master)).catch(() => undefined);
      if ((await roleOf(deposed)) === 'slave') {
        return;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `The deposed master ${deposed.port} did not become a replica within ${conversionDeadlineMs} ms.`,
        );
      }
      await sleep(100);
    }
  }

  /**
   * Resolves once every Sentinel has had the promoted master answer its pings for longer than the down-after, twice in
   * a row: a Sentinel that adopts a new master opens new links to it and counts it down if they take 500 ms to answer,
   * which a loaded machine can take. Restarting the killed server only then means such a Sentinel has no replica to
   * fail over to, so the failover it starts comes to nothing instead of turning the topology round (seen in about one
   * Sentinel soak in two on a loaded 2-core VM, which then had no verdict). Gives up quietly after 5 s: `#settle`
   * judges the topology afterwards either way.
   */
  async #sentinelsReachTheNewMaster(): Promise<void> {
    const deadline = Date.now() + 5_000;
    for (let healthyChecks = 0; Date.now() < deadline;) {
      const healthy = await Promise.all(this.#sentinelAddresses().map((sentinel) => this.#reachesMaster(sentinel)));
      healthyChecks = healthy.every(Boolean) ? healthyChecks + 1 : 0;
      if (healthyChecks === 2) {
        return;
      }
      await sleep(downAfterMs + 100);
    }
  }

  /** Whether `sentinel` names the current master, flags it up, and had a ping answered within the down-after. */
  async #reachesMaster(sentinel: RedisAddress): Promise<boolean> {
    return withAdminConnection(sentinel, async (client) => {
      const master = fields((await client.call('SENTINEL', 'MASTER', masterName)) as unknown[]);
      return (
        master.get('port') === String(this.#master.announcedPort) &&
        master.get('flags') === 'master' &&
        Number(master.get('last-ok-ping-reply')) < downAfterMs
      );
    }).catch(() => false);
  }

  waitUntilStable(): Promise<void> {
    return this.#settle(false);
  }

  async #settle(followSpontaneousFailover: boolean): Promise<void> {
    // Waiting on one direction first would wait out a failover that turned it round.
    if (!followSpontaneousFailover) {
      await this.#replicating();
    }
    const deadline = Date.now() + stableTimeoutMs;
    for (;;) {
      if (followSpontaneousFailover) {
        await this.#adoptASettledFailover();
      }
      const reasons = (
        await Promise.all(this.#sentinelAddresses().map((sentinel) => this.#unstableBecause(sentinel)))
      ).filter((reason) => reason !== undefined);
      if (reasons.length === 0) {
        if (followSpontaneousFailover) {
          await this.#replicating();
        }
        return;
      }
      if (Date.now() > deadline) {
        throw new Error(`The Sentinel topology did not settle within ${stableTimeoutMs} ms: ${reasons.join('; ')}`);
      }
      await sleep(50);
    }
  }

  /** Every replica replicates from the master, as the master lists it, and acknowledges a `WAIT`. */
  async #replicating(): Promise<void> {
    for (const replica of this.#replicas) {
      await waitUntilReplicating(this.#master, replica, replica.announcedPort);
    }
  }

  async stop(): Promise<void> {
    if (this.#stopped) {
      return;
    }
    this.#stopped = true;
    // Sentinels first, so none of them reacts to the servers going away; then their doors, the servers, theirs.
    await Promise.all(this.sentinelNodes.map(({ process }) => process.stop()));
    await Promise.all(this.started.map((part) => part.stop()));
  }

  /** Every door of the topology's servers and Sentinels. */
  #doors(): RedisFrontDoor[] {
    return [
      ...[this.#master, ...this.#replicas].map(({ door }) => door),
      ...this.sentinelNodes.flatMap(({ door, clientDoors }) =>
        [door, clientDoors?.minority, clientDoors?.majority].filter((each) => each !== undefined),
      ),
    ];
  }

  /** The Sentinels' own addresses: the harness asks them directly, past any partition. */
  #sentinelAddresses(): RedisAddress[] {
    return this.sentinelNodes.map(({ process }) => process);
  }

  /**
   * When the Sentinels failed over on their own and it has settled (every Sentinel names a replica as master, it
   * answers as one, and the former master is a replica with its link up), takes that as the topology. A failover still
   * under way, which may yet go either way, fails the last two.
   */
  async #adoptASettledFailover(): Promise<void> {
    const views = await Promise.all(this.#sentinelAddresses().map((sentinel) => masterAddressSeenBy(sentinel)));
    const named = this.#replicas.find(({ announcedPort }) => views.every((view) => view === String(announcedPort)));
    if (named === undefined || (await roleOf(named)) !== 'master') {
      return;
    }
    const formerMaster = await replicationInfo(this.#master).catch((error: unknown) => String(error));
    if (formerMaster.includes('role:slave') && formerMaster.includes('master_link_status:up')) {
      this.#becomeMaster(named, this.#master);
    }
  }

  /** Why `sentinel` would not start a clean failover now; `undefined` when it would. */
  async #unstableBecause(sentinel: RedisAddress): Promise<string | undefined> {
    return withAdminConnection(sentinel, async (client) => {
      const master = fields((await client.call('SENTINEL', 'MASTER', masterName)) as unknown[]);
      if (master.get('port') !== String(this.#master.announcedPort) || master.get('flags') !== 'master') {
        return `Sentinel ${sentinel.port} sees master ${master.get('port')} with flags ${master.get('flags')}`;
      }
      if (master.get('num-other-sentinels') !== '2') {
        return `Sentinel ${sentinel.port} knows ${master.get('num-other-sentinels')} other Sentinels`;
      }
      const listed = ((await client.call('SENTINEL', 'REPLICAS', masterName)) as unknown[][]).map(fields);
      for (const { announcedPort } of this.#replicas) {
        const replica = listed.find((entry) => entry.get('port') === String(announcedPort));
        if (replica?.get('flags') !== 'slave' || replica.get('master-link-status') !== 'ok') {
          return `Sentinel ${sentinel.port} sees replica ${announcedPort} with flags ${replica?.get('flags')} and link ${replica?.get('master-link-status')}`;
        }
      }
      return undefined;
    });
  }
}

/** The port `sentinel` names as the master's, or what went wrong asking. */
function masterAddressSeenBy(sentinel: RedisAddress): Promise<string> {
  return withAdminConnection(sentinel, async (client) => {
    const address = (await client.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName)) as string[] | null;
    return address?.[1] ?? 'none';
  }).catch((error: unknown) => String(error));
}

/** `ROLE`'s first field of the server at `address`, or what went wrong asking. */
function roleOf(address: RedisAddress): Promise<string> {
  return withAdminConnection(address, async (client) => String(((await client.call('ROLE')) as unknown[])[0])).catch(
    (error: unknown) => String(error),
  );
}

/** A flat `[name, value, name, value, ...]` reply as a map. */
function fields(reply: unknown[]): Map<string, string> {
  const map = new Map<string, string>();
  for (let index = 0; index + 1 < reply.length; index += 2) {
    map.set(String(reply[index]), String(reply[index + 1]));
  }
  return map;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
