import { describeValue } from '../describe-value.js';
import { clusterHashSlot } from './cluster-hash-slot.js';
import type { WaitForReplicas } from './wait-for-replicas.js';

/** How long a replica count read from `INFO replication` is used before it is read again. */
export const replicaCountRefreshMs = 1_000;

/** Reads `INFO replication` from the server that holds a given key. */
export type ReplicationInfoReader = () => Promise<string>;

interface CachedCount {
  count: number | undefined;
  readAt: number;
  reading: Promise<number> | undefined;
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
 * still counted ({@link replicasToCountIn}). A count is read when first needed, then used for
 * {@link replicaCountRefreshMs} and read again in the background while the old one still answers, so a write waits
 * for `INFO` only the first time and after {@link forget}. One instance per client, shared by every storage and
 * strategy over it: a server is asked about once a second at most.
 */
export class ConnectedReplicaCounts {
  readonly #cached = new Map<string, CachedCount>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** The counts of `client`'s servers, made on first use. */
  static of(client: object): ConnectedReplicaCounts {
    let counts = countsByClient.get(client);
    if (counts === undefined) {
      counts = new ConnectedReplicaCounts();
      countsByClient.set(client, counts);
    }
    return counts;
  }

  /** The count for `server` (a name from {@link replicaServerOf}); a number at once whenever one is cached. */
  count(server: string, read: ReplicationInfoReader): number | Promise<number> {
    const cached = this.#cached.get(server);
    if (cached?.count !== undefined) {
      if (this.now() - cached.readAt >= replicaCountRefreshMs && cached.reading === undefined) {
        // A failed refresh keeps the old count; the next call tries again.
        this.#read(cached, read).catch(() => undefined);
      }
      return cached.count;
    }
    if (cached?.reading !== undefined) {
      return cached.reading;
    }
    const entry: CachedCount = { count: undefined, readAt: 0, reading: undefined };
    this.#cached.set(server, entry);
    return this.#read(entry, read).catch((error: unknown) => {
      // Not cached: the next write asks again instead of deciding without a count.
      if (this.#cached.get(server) === entry) {
        this.#cached.delete(server);
      }
      throw error;
    });
  }

  /** Drops the count for `server`: the next call reads it again before answering (after a `WAIT` fell short, say). */
  forget(server: string): void {
    this.#cached.delete(server);
  }

  #read(entry: CachedCount, read: ReplicationInfoReader): Promise<number> {
    const reading = read().then(
      (info) => {
        entry.count = replicasToCountIn(info);
        entry.readAt = this.now();
        entry.reading = undefined;
        return entry.count;
      },
      (error: unknown) => {
        entry.reading = undefined;
        throw error;
      },
    );
    entry.reading = reading;
    return reading;
  }
}

/**
 * The text of the `INFO replication` reply at `index` of a pipeline's results (routed there behind a keyed command);
 * throws its error, or an error for a reply that is not text.
 */
export function replicationInfoAt(results: [Error | null, unknown][] | null, index: number): string {
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
