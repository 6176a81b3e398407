import { describeValue } from '../describe-value.js';
import { clusterHashSlot } from './cluster-hash-slot.js';
import { assertRouted, type SlotMapClient } from './cluster-redirection.js';
import type { WaitForReplicas } from './wait-for-replicas.js';

/** How long a replica count read from `INFO replication` is used before it is read again. */
export const replicaCountRefreshMs = 1_000;

/** Reads `INFO replication` from the server that holds a given key. */
export type ReplicationInfoReader = () => Promise<string>;

/**
 * The events of an ioredis `Redis` or `Cluster` after which a count may describe a server that no longer takes the
 * writes: `close` (a standalone or Sentinel client reconnects, maybe to a promoted replica), and on a Cluster
 * `refresh` (a new slot map: a failover moved a slot to another master), `+node`, `-node`, and each node's `close`.
 * Typed structurally, so the package needs no ioredis types; a client without `on` (a stub) has no such events.
 */
export interface ReconnectingClient {
  on?(event: string, listener: (node: ReconnectingClient) => void): unknown;
  /** ioredis's connection status: `'ready'` once it answers commands. */
  readonly status?: string;
  /** An ioredis `Cluster`'s node connections. */
  nodes?(role: 'all'): readonly ReconnectingClient[];
}

/** One read of a server's count: the connection epoch and time it was asked in, its answer once there. */
interface CountRead {
  readonly epoch: number;
  readonly askedAt: number;
  readonly count: number | undefined;
  readonly reading: Promise<number> | undefined;
}

const countsByClient = new WeakMap<object, ConnectedReplicaCounts>();

/**
 * How many replication IDs {@link replicatedHistories} keeps: each failover starts one, so a process that lived through
 * a thousand failovers forgets the oldest, long replaced, first.
 */
const replicatedHistoriesKept = 1_000;

/**
 * The replication IDs (`master_replid`) under which some server was seen with an online replica, oldest first. A
 * master keeps its ID while it stays a master, and a promoted replica takes a new one, so a server reporting no
 * replica under an ID in here is a master that lost its replica: the one a failover may have just replaced (its
 * replica promoted while it lives, cut off from the Sentinels or too slow to answer them), whose writes are thrown
 * away when it is made a replica of the new master. Process-wide: IDs are random and name one history everywhere.
 */
const replicatedHistories = new Set<string>();

/**
 * The replicas of each server a client writes to, as `INFO replication` reports them, with a replica the server lost
 * still counted ({@link replicasToCountIn}). One instance per client, shared by every storage and strategy over it.
 *
 * A count decides a grant or a write only while it can still be true of the server that takes it (ADR 1103):
 * - it was read over the client's current connections: a reconnection or a new Cluster slot map starts a new epoch,
 *   and a count from an earlier one is read again before it is used;
 * - a count of 0 (send no `WAIT`) is younger than {@link replicaCountRefreshMs}: an older 0 is read again before it
 *   is used, since a replica may have attached since and a write it misses is lost in the next failover;
 * - a count above 0 may be older: it is used while a background read replaces it, because it only errs towards
 *   waiting, and a `WAIT` that falls short {@link forget}s it.
 */
export class ConnectedReplicaCounts {
  readonly #reads = new Map<string, CountRead>();
  #epoch = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** The counts of `client`'s servers, made on first use, with a new epoch at each of its reconnections. */
  static of(client: ReconnectingClient): ConnectedReplicaCounts {
    let counts = countsByClient.get(client);
    if (counts === undefined) {
      counts = new ConnectedReplicaCounts();
      countsByClient.set(client, counts);
      counts.#watch(client);
    }
    return counts;
  }

  /** The count for `server` (a name from {@link replicaServerOf}); a number at once while the cached one may decide. */
  count(server: string, read: ReplicationInfoReader): number | Promise<number> {
    const last = this.#reads.get(server);
    if (last?.epoch === this.#epoch) {
      if (last.count !== undefined) {
        const fresh = this.now() - last.askedAt < replicaCountRefreshMs;
        if (fresh || last.count > 0) {
          if (!fresh && last.reading === undefined) {
            // A failed refresh keeps the old count; the next call tries again.
            this.#read(server, read, last).catch(() => undefined);
          }
          return last.count;
        }
      } else if (last.reading !== undefined) {
        return last.reading;
      }
    }
    return this.#read(server, read, undefined).catch((error: unknown) => {
      // Not cached: the next write asks again instead of deciding without a count.
      if (this.#reads.get(server)?.count === undefined) {
        this.#reads.delete(server);
      }
      throw error;
    });
  }

  /** Drops the count for `server`: the next call reads it again before answering (after a `WAIT` fell short, say). */
  forget(server: string): void {
    this.#reads.delete(server);
  }

  /**
   * Reads `server`'s count in the epoch and at the time of asking, and keeps it under them: a reconnection while
   * the reply is on its way leaves it in the old epoch. `answering` is a count that goes on answering meanwhile.
   */
  #read(server: string, read: ReplicationInfoReader, answering: CountRead | undefined): Promise<number> {
    const epoch = this.#epoch;
    const askedAt = this.now();
    const reading = read().then(
      (info) => {
        const count = replicasToCountIn(info);
        if ((this.#reads.get(server)?.epoch ?? epoch) <= epoch) {
          this.#reads.set(server, { epoch, askedAt, count, reading: undefined });
        }
        return count;
      },
      (error: unknown) => {
        const current = this.#reads.get(server);
        if (current?.reading === reading) {
          this.#reads.set(server, { ...current, reading: undefined });
        }
        throw error;
      },
    );
    this.#reads.set(
      server,
      answering === undefined ? { epoch, askedAt, count: undefined, reading } : { ...answering, reading },
    );
    return reading;
  }

  #watch(client: ReconnectingClient): void {
    // Before its first `ready` a client answers nothing, so its connect-time events (a Cluster's `+node` and
    // `refresh`) change nothing a count was read over; reads sent meanwhile wait in its offline queue.
    let answered = client.status === 'ready';
    client.on?.('ready', () => {
      answered = true;
    });
    const newEpoch = (): void => {
      if (answered) {
        this.#epoch += 1;
      }
    };
    const watchNode = (node: ReconnectingClient): void => {
      node.on?.('close', newEpoch);
    };
    client.on?.('close', newEpoch);
    client.on?.('refresh', newEpoch);
    client.on?.('-node', newEpoch);
    client.on?.('+node', (node) => {
      newEpoch();
      watchNode(node);
    });
    client.nodes?.('all').forEach(watchNode);
  }
}

/**
 * The text of the `INFO replication` reply at `index` of a pipeline's results, routed there behind a keyed command
 * (first); throws that command's error ({@link assertRouted}), the reply's error, or an error for a reply that is not text.
 */
export function replicationInfoAt(
  client: SlotMapClient,
  results: [Error | null, unknown][] | null,
  index: number,
): string {
  assertRouted(client, results);
  const [error, info] = results?.[index] ?? [new Error('The pipeline gave no reply to INFO replication.'), undefined];
  if (error !== null) {
    throw error;
  }
  if (typeof info !== 'string') {
    throw new Error(
      `INFO replication answered ${describeValue(info)}, not text; cannot count the replicas to wait for.`,
    );
  }
  return info;
}

/** `connected_slaves` of an `INFO replication` reply; 0 when it has none (a server or mock that does not replicate). */
export function connectedReplicasIn(info: string): number {
  return Number(/^connected_slaves:(\d+)\r?$/mu.exec(info)?.[1] ?? 0);
}

/**
 * The replicas a master's `INFO replication` reply says to count ({@link replicasOnlineIn}), and 1 when it has none
 * left of the ones this process saw it with under the same replication ID (ADR 1102). Waiting for that lost replica
 * fails, so a master a failover replaced behind its back acknowledges nothing, instead of acknowledging writes it will
 * lose. Redis starts a new ID when it restarts and after `repl-backlog-ttl` (an hour by default) without replicas.
 */
export function replicasToCountIn(info: string): number {
  const online = replicasOnlineIn(info);
  const history = /^master_replid:([0-9a-fA-F]+)\r?$/mu.exec(info)?.[1];
  if (history === undefined) {
    return online;
  }
  if (online > 0) {
    replicatedHistories.delete(history);
    replicatedHistories.add(history);
    if (replicatedHistories.size > replicatedHistoriesKept) {
      replicatedHistories.delete(replicatedHistories.values().next().value as string);
    }
    return online;
  }
  return replicatedHistories.has(history) ? 1 : 0;
}

/**
 * The replicas of an `INFO replication` reply that can acknowledge a `WAIT`: its `slaveN:` lines in state `online`
 * with a listening port. A backup taken with `redis-cli --rdb` shows up in `connected_slaves` too, as port 0 in
 * `wait_bgsave`; counting it would make writes wait for a tool that never acknowledges. A reply without `slaveN:`
 * lines (a mock) counts `connected_slaves`.
 */
export function replicasOnlineIn(info: string): number {
  const lines = [...info.matchAll(/^slave\d+:.*$/gmu)];
  if (lines.length === 0) {
    return connectedReplicasIn(info);
  }
  return lines.filter(([line]) => /,state=online(,|\r?$)/u.test(line) && !/(^|[:,])port=0,/u.test(line)).length;
}

/**
 * Which server a count is kept for: the one server behind a client that is not a Cluster; on a Cluster, the hash
 * slot of `key`, since each master has replicas of its own and only the slot says which master holds the key.
 */
export function replicaServerOf(key: string, isCluster: boolean): string {
  return isCluster ? `slot ${clusterHashSlot(key)}` : 'server';
}

/**
 * How many replicas a write must reach under `wait`: its number, or for `'auto'` one while `server` has a replica to
 * count ({@link replicasToCountIn}) and none otherwise. A number at once whenever the count is cached.
 */
export function replicasToWaitFor(
  wait: WaitForReplicas,
  counts: ConnectedReplicaCounts,
  server: string,
  read: ReplicationInfoReader,
): number | Promise<number> {
  if (wait.replicas !== 'auto') {
    return wait.replicas;
  }
  const count = counts.count(server, read);
  return typeof count === 'number' ? Math.min(count, 1) : count.then((known) => Math.min(known, 1));
}
