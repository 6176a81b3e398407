import { loopbackHost } from '../free-loopback-port.js';
import { withAdminConnection, type RedisAddress } from './admin-connection.js';
import { RedisFrontDoor } from './redis-front-door.js';
import { startRedisServer, type RedisServerProcess } from './start-redis-server.js';
import { replicationInfo, replicationTestArgs, waitUntilReplicating } from './start-replicated-redis.js';

/** One of the two data servers of a {@link RedisSentinelTopology}. */
export interface SentinelDataServer {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The redis-server process: kill, pause, resume it here. */
  readonly process: RedisServerProcess;
  /** The door a replica's link to this server goes through while it is cut; nothing else uses it. */
  readonly door: RedisFrontDoor;
}

/** What a failover driven by {@link RedisSentinelTopology.killMaster} or {@link RedisSentinelTopology.pauseMaster} did. */
export interface FailoverOutcome {
  /** The master the failover replaced: killed, or stopped and continued. */
  readonly killed: SentinelDataServer;
  readonly promoted: SentinelDataServer;
  /** From the SIGKILL (or SIGSTOP) until every Sentinel named the promoted server as master. */
  readonly elapsedMs: number;
}

/**
 * A master, a replica and three Sentinels on loopback (down-after 500 ms, quorum 2), started by
 * {@link startRedisSentinel}. Sentinels, clients and the replica reach the servers directly; to cut the replica's
 * link like a partition, the replica is first moved onto a {@link RedisFrontDoor} in front of its master.
 */
export interface RedisSentinelTopology {
  readonly masterName: string;
  readonly sentinels: readonly RedisAddress[];
  /** What `new Redis(...)` (ioredis 5 or 6) takes to find the master through the Sentinels. */
  readonly sentinelOptions: {
    readonly sentinels: readonly { readonly host: string; readonly port: number }[];
    readonly name: string;
  };
  /** The data server the Sentinels name as master (after {@link killMaster}: the promoted one). */
  master(): SentinelDataServer;
  /** The other data server: the replica, or the killed one until {@link recover}. */
  replica(): SentinelDataServer;
  /**
   * Moves the replica's link onto the master's door (a partial resync, nothing copied again) and from then on drops
   * every byte on it, both ways, closing nothing: the master still counts its replica, which neither gets its writes
   * nor acknowledges them. A Sentinel notices a replica replicating from another address than the master's only at
   * its `INFO` of the replica (every 10 s while the link is up) and moves it back at a later one, so a cut holds for
   * several seconds.
   */
  cutReplicationLink(): Promise<void>;
  /** Ends the cut: the replica replicates from the master directly again, and has caught up when this resolves. */
  healReplicationLink(): Promise<void>;
  /**
   * SIGKILLs the master, ends a cut (a partition that outlived the master), runs `onKilled` (the replica's data is
   * frozen there: its master is dead and nothing is promoted before Sentinels agree, at least 500 ms later), then
   * resolves once every Sentinel names the replica as master and it answers as one. The killed server stays down
   * until {@link recover}. A replica paused with SIGSTOP must be resumed inside `onKilled`.
   */
  killMaster(onKilled?: (replica: SentinelDataServer) => Promise<void>): Promise<FailoverOutcome>;
  /**
   * SIGSTOPs the master, runs `onStopped` (the replica's data is frozen as with {@link killMaster}), waits until every
   * Sentinel names the replica as master and it answers as one, then continues the old master (SIGCONT): a master too
   * slow for its Sentinels, deposed while it lives. It answers its clients as a master, with no replica, until the
   * Sentinels reach it and make it a replica of the new one, which discards whatever it acknowledged meanwhile.
   * {@link recover} then waits until it replicates from the new master.
   */
  pauseMaster(onStopped?: (replica: SentinelDataServer) => Promise<void>): Promise<FailoverOutcome>;
  /**
   * Restarts the killed server as a replica of the master and waits until {@link waitUntilStable} holds. With
   * `followSpontaneousFailover`, a failover the Sentinels made on their own meanwhile (a loaded machine can stall the
   * master past the 500 ms down-after) is adopted once it has settled, instead of timing out: for suites that only
   * need a stable topology again, never for the soak, whose faults are aimed by role.
   */
  recover(options?: { readonly followSpontaneousFailover?: boolean }): Promise<void>;
  /**
   * Resolves once the replica is online on the master and every Sentinel names the master, sees it up, knows the two
   * other Sentinels and the replica, and reads the replica's link as up: a failover can start from here.
   */
  waitUntilStable(): Promise<void>;
  /** Stops the Sentinels, then the doors and the servers. Idempotent. */
  stop(): Promise<void>;
}

const masterName = 'checkpoint-fencing';
const downAfterMs = 500;
/**
 * Also how long a Sentinel waits before it tries again after a failover it could not finish (twice this: a split
 * vote, which a loaded machine makes likelier, costs 4 s), and at least how long after it noticed a replica
 * replicating from another address than the master's (a cut link) it moves the replica back. It notices and acts only
 * on its `INFO` of the replica, every 10 s while the replica's link is up, so a cut holds for several seconds.
 */
const failoverTimeoutMs = 2_000;
const stableTimeoutMs = 30_000;
const failoverDeadlineMs = 30_000;

/**
 * Starts a Sentinel topology: two redis-servers, one a replica of the other (with {@link replicationTestArgs}), each
 * with a {@link RedisFrontDoor} for cutting links, then three Sentinels monitoring the master with quorum 2,
 * down-after 500 ms and `announce-ip 127.0.0.1`, and resolves once {@link RedisSentinelTopology.waitUntilStable}
 * holds. Everything binds and announces 127.0.0.1 only. Sentinels and clients reach the servers directly, never
 * through this process: a busy test process cannot make a Sentinel think a server is down. Rejects (never skips) when
 * redis-server is missing; stops what it started on failure. Suites that kill masters keep a topology of their own
 * (doc/testing.md).
 */
export async function startRedisSentinel(): Promise<RedisSentinelTopology> {
  const started: { stop(): Promise<void> }[] = [];
  const sentinelProcesses: RedisServerProcess[] = [];
  try {
    const first = await startDataServer([]);
    started.push(first.stopper);
    const second = await startDataServer(['--replicaof', loopbackHost, String(first.server.port)]);
    started.push(second.stopper);
    await waitUntilReplicating(first.server, second.server);
    for (let index = 0; index < 3; index += 1) {
      const sentinel = await startRedisServer({
        configText: sentinelConfig(first.server.port, second.server.port),
        args: ['--sentinel'],
      });
      sentinelProcesses.push(sentinel);
    }
    const topology = new SentinelTopology(first.server, second.server, sentinelProcesses, started);
    await topology.waitUntilStable();
    return topology;
  } catch (error) {
    await Promise.all(sentinelProcesses.map((sentinel) => sentinel.stop()));
    await Promise.all(started.map((part) => part.stop()));
    throw error;
  }
}

/** A redis-server and its door; `extraArgs` after the replication arguments. */
async function startDataServer(
  extraArgs: readonly string[],
): Promise<{ server: SentinelDataServer; stopper: { stop(): Promise<void> } }> {
  const process = await startRedisServer({ args: [...replicationTestArgs, ...extraArgs] });
  const door = await RedisFrontDoor.open().catch(async (error: unknown) => {
    await process.stop();
    throw error;
  });
  door.aimAt(process.port);
  const server: SentinelDataServer = { host: loopbackHost, port: process.port, process, door };
  return {
    server,
    stopper: {
      stop: async () => {
        await door.close();
        await process.stop();
      },
    },
  };
}

function sentinelConfig(masterPort: number, replicaPort: number): string {
  return [
    'sentinel resolve-hostnames no',
    `sentinel announce-ip ${loopbackHost}`,
    `sentinel monitor ${masterName} ${loopbackHost} ${masterPort} 2`,
    `sentinel down-after-milliseconds ${masterName} ${downAfterMs}`,
    `sentinel failover-timeout ${masterName} ${failoverTimeoutMs}`,
    `sentinel parallel-syncs ${masterName} 1`,
    // Known from the start: a Sentinel would otherwise learn of the replica from the master's INFO, every 10 s.
    `sentinel known-replica ${masterName} ${loopbackHost} ${replicaPort}`,
    '',
  ].join('\n');
}

class SentinelTopology implements RedisSentinelTopology {
  readonly masterName = masterName;
  readonly sentinels: readonly RedisAddress[];
  readonly sentinelOptions: RedisSentinelTopology['sentinelOptions'];
  #master: SentinelDataServer;
  #replica: SentinelDataServer;
  #killed: SentinelDataServer | undefined;
  #stopped = false;

  constructor(
    master: SentinelDataServer,
    replica: SentinelDataServer,
    private readonly sentinelProcesses: readonly RedisServerProcess[],
    private readonly dataServers: readonly { stop(): Promise<void> }[],
  ) {
    this.#master = master;
    this.#replica = replica;
    this.sentinels = sentinelProcesses.map(({ host, port }) => ({ host, port }));
    this.sentinelOptions = { sentinels: this.sentinels.map(({ host, port }) => ({ host, port })), name: masterName };
  }

  master(): SentinelDataServer {
    return this.#master;
  }

  replica(): SentinelDataServer {
    return this.#replica;
  }

  async cutReplicationLink(): Promise<void> {
    const master = this.#master;
    await this.#replicateFrom(master.door.port);
    master.door.cutReplication();
  }

  async healReplicationLink(): Promise<void> {
    this.#master.door.healReplication();
    await this.#replicateFrom(this.#master.port);
  }

  /** Points the replica at `port` (the master itself, or its door) and waits until it replicates through it. */
  async #replicateFrom(port: number): Promise<void> {
    const replica = this.#replica;
    await withAdminConnection(replica, (admin) => admin.replicaof(loopbackHost, port));
    await waitUntilReplicating({ host: loopbackHost, port }, replica);
  }

  killMaster(onKilled?: (replica: SentinelDataServer) => Promise<void>): Promise<FailoverOutcome> {
    return this.#failOver('kill', onKilled);
  }

  pauseMaster(onStopped?: (replica: SentinelDataServer) => Promise<void>): Promise<FailoverOutcome> {
    return this.#failOver('pause', onStopped);
  }

  /** Kills or stops the master, runs `onDown`, and resolves once the replica is promoted (continuing a stopped master). */
  async #failOver(
    how: 'kill' | 'pause',
    onDown: ((replica: SentinelDataServer) => Promise<void>) | undefined,
  ): Promise<FailoverOutcome> {
    if (this.#killed !== undefined) {
      throw new Error(`${how}Master(): the last killed master was not recovered yet; call recover() first.`);
    }
    const old = this.#master;
    const promoted = this.#replica;
    const startedAt = performance.now();
    if (how === 'kill') {
      old.process.kill();
      old.door.healReplication();
    } else {
      old.process.pause();
    }
    try {
      await onDown?.(promoted);
      const deadline = Date.now() + failoverDeadlineMs;
      for (;;) {
        const views = await Promise.all(this.sentinels.map((sentinel) => masterAddressSeenBy(sentinel)));
        if (views.every((view) => view === String(promoted.port)) && (await roleOf(promoted)) === 'master') {
          break;
        }
        if (Date.now() > deadline) {
          throw new Error(
            `The Sentinels did not promote ${promoted.port} within ${failoverDeadlineMs} ms of the ${how} of master ` +
              `${old.port}; they name ${views.join(', ')}.`,
          );
        }
        await sleep(20);
      }
    } finally {
      if (how === 'pause') {
        old.process.resume();
      }
    }
    this.#master = promoted;
    this.#replica = old;
    this.#killed = how === 'kill' ? old : undefined;
    return { killed: old, promoted, elapsedMs: performance.now() - startedAt };
  }

  async recover(options?: { readonly followSpontaneousFailover?: boolean }): Promise<void> {
    const killed = this.#killed;
    if (killed !== undefined) {
      await this.#sentinelsReachTheNewMaster();
      await killed.process.restart(['--replicaof', loopbackHost, String(this.#master.port)]);
      this.#killed = undefined;
    }
    await this.#settle(options?.followSpontaneousFailover === true);
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
    let healthyChecks = 0;
    while (healthyChecks < 2 && Date.now() < deadline) {
      const healthy = await Promise.all(this.sentinels.map((sentinel) => this.#reachesMaster(sentinel)));
      healthyChecks = healthy.every(Boolean) ? healthyChecks + 1 : 0;
      await sleep(downAfterMs + 100);
    }
  }

  /** Whether `sentinel` names the current master, flags it up, and had a ping answered within the down-after. */
  async #reachesMaster(sentinel: RedisAddress): Promise<boolean> {
    return withAdminConnection(sentinel, async (client) => {
      const master = fields((await client.call('SENTINEL', 'MASTER', masterName)) as unknown[]);
      return (
        master.get('port') === String(this.#master.port) &&
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
      await waitUntilReplicating(this.#master, this.#replica);
    }
    const deadline = Date.now() + stableTimeoutMs;
    for (;;) {
      if (followSpontaneousFailover && (await this.#settledTheOtherWayRound())) {
        [this.#master, this.#replica] = [this.#replica, this.#master];
      }
      const reasons = (await Promise.all(this.sentinels.map((sentinel) => this.#unstableBecause(sentinel)))).filter(
        (reason) => reason !== undefined,
      );
      if (reasons.length === 0) {
        if (followSpontaneousFailover) {
          await waitUntilReplicating(this.#master, this.#replica);
        }
        return;
      }
      if (Date.now() > deadline) {
        throw new Error(`The Sentinel topology did not settle within ${stableTimeoutMs} ms: ${reasons.join('; ')}`);
      }
      await sleep(50);
    }
  }

  async stop(): Promise<void> {
    if (this.#stopped) {
      return;
    }
    this.#stopped = true;
    // Sentinels first, so none of them reacts to the servers going away.
    await Promise.all(this.sentinelProcesses.map((sentinel) => sentinel.stop()));
    await Promise.all(this.dataServers.map((server) => server.stop()));
  }

  /**
   * Whether the Sentinels failed over on their own and it has settled: every Sentinel names the replica as master,
   * the replica answers as one, and the former master is a replica with its link up. A failover still under way, which
   * may yet go either way, fails the last two.
   */
  async #settledTheOtherWayRound(): Promise<boolean> {
    const replicaPort = String(this.#replica.port);
    const views = await Promise.all(this.sentinels.map((sentinel) => masterAddressSeenBy(sentinel)));
    if (!views.every((view) => view === replicaPort) || (await roleOf(this.#replica)) !== 'master') {
      return false;
    }
    const formerMaster = await replicationInfo(this.#master).catch((error: unknown) => String(error));
    // Of two data servers, a replica with its link up replicates from the other (directly or through its door).
    return formerMaster.includes('role:slave') && formerMaster.includes('master_link_status:up');
  }

  /** Why `sentinel` would not start a clean failover now; `undefined` when it would. */
  async #unstableBecause(sentinel: RedisAddress): Promise<string | undefined> {
    return withAdminConnection(sentinel, async (client) => {
      const master = fields((await client.call('SENTINEL', 'MASTER', masterName)) as unknown[]);
      if (master.get('port') !== String(this.#master.port) || master.get('flags') !== 'master') {
        return `Sentinel ${sentinel.port} sees master ${master.get('port')} with flags ${master.get('flags')}`;
      }
      if (master.get('num-other-sentinels') !== '2') {
        return `Sentinel ${sentinel.port} knows ${master.get('num-other-sentinels')} other Sentinels`;
      }
      const replicas = ((await client.call('SENTINEL', 'REPLICAS', masterName)) as unknown[][]).map(fields);
      const replica = replicas.find((entry) => entry.get('port') === String(this.#replica.port));
      if (replica?.get('flags') !== 'slave' || replica.get('master-link-status') !== 'ok') {
        return `Sentinel ${sentinel.port} sees replica ${this.#replica.port} with flags ${replica?.get('flags')} and link ${replica?.get('master-link-status')}`;
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
