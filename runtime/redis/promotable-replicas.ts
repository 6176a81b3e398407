import { describeValue } from '../describe-value.js';
import { clusterHashSlot } from './cluster-hash-slot.js';
import { assertRouted, execRouted, type RoutingClient, type SlotMapClient } from './cluster-redirection.js';
import { SentinelReplicas, type SentinelClient } from './sentinel-replicas.js';

/**
 * The events of an ioredis `Redis` or `Cluster` after which a command may go out on another connection than the write
 * before it: `close` (a standalone or Sentinel client reconnects, maybe to a promoted replica), and on a Cluster each
 * node's `close` (its nodes, and those `+node` adds). Typed structurally, so the package needs no ioredis types; a
 * client without `on` (a stub) has no such events.
 */
export interface ReconnectingClient {
  on?(event: string, listener: (node: ReconnectingClient) => void): unknown;
  /** An ioredis `Cluster`'s node connections. */
  nodes?(role: 'all'): readonly ReconnectingClient[];
}

/**
 * What `'auto'` asks of the client a write goes through: its connection events, its Sentinels when it finds its master
 * through them, and on an ioredis `Cluster` the slot table (`CLUSTER SLOTS`: for each hash slot, the address of its
 * master and then of each replica the master's node table does not flag as failed).
 */
export interface ReplicatedClient extends ReconnectingClient, SentinelClient {
  readonly isCluster?: boolean;
  readonly slots?: readonly (readonly string[] | undefined)[];
}

/** How many replicas a write must reach under `'auto'`, and why, when the server lists fewer. */
export interface ReplicaRequirement {
  readonly replicas: number;
  /** Why more replicas are waited for than the master lists, when they are: said with a shortfall. */
  readonly reason: string | undefined;
}

/** What an `INFO replication` reply says about the replicas a write must reach. */
export interface ReplicationState {
  /** The replicas it lists with a listening port, whatever their state. */
  readonly listed: number;
  /** `listed`, or the most this process saw the master list under its replication ID, when that is more (ADR 1102). */
  readonly counted: number;
  /** `repl_backlog_active:1`: the server had a replica within `repl-backlog-ttl`, or was one. */
  readonly backlogActive: boolean;
}

const requirementsByClient = new WeakMap<object, PromotableReplicas>();

/**
 * How many replication IDs {@link replicasSeenUnder} keeps: each failover starts one, so a process that lived through
 * a thousand failovers forgets the oldest, long replaced, first.
 */
const replicatedHistoriesKept = 1_000;

/**
 * The most replicas some server was seen listing under each replication ID (`master_replid`), oldest ID first. A
 * master keeps its ID while it stays a master, and a promoted replica takes a new one, so a server listing fewer under
 * an ID in here is a master that lost replicas: maybe the one a failover just replaced, cut off from the Sentinels or
 * too slow to answer them, whose writes are thrown away when it is made a replica of the new master. Process-wide:
 * IDs are random and name one history everywhere.
 */
const replicasSeenUnder = new Map<string, number>();

/**
 * Under `'auto'`, how many replicas each write through a client must reach: every replica that could be promoted in
 * its place (ADR 1104), judged from the `INFO replication` read right after the write in the same pipeline (ADR 1105),
 * and by what the topology knows beyond the master (ADR 1106): the replicas the Sentinels list on a Sentinel client,
 * the node table on a Cluster, and on any other client a server whose replication backlog says it had a replica.
 * One instance per client, shared by every storage and strategy over it.
 *
 * It also keeps, per server and while the client keeps its connections, the count the last write judged: the `WAIT`
 * the next write sends in its own pipeline, so that a stable replica set costs one round trip.
 */
export class PromotableReplicas {
  readonly #judged = new Map<string, { readonly epoch: number; readonly replicas: number }>();
  readonly #sentinels: SentinelReplicas | undefined;
  /** The last reply read and what it says: the writes of one tick share one `INFO replication`. */
  #lastRead: { readonly info: string; readonly state: ReplicationState } | undefined;
  #epoch = 0;

  private constructor(private readonly client: ReplicatedClient) {
    this.#sentinels = client.isCluster === true ? undefined : SentinelReplicas.over(client);
  }

  /** The instance of `client`, made on first use; a new epoch starts at each of its connections' closes. */
  static of(client: ReplicatedClient): PromotableReplicas {
    let replicas = requirementsByClient.get(client);
    if (replicas === undefined) {
      replicas = new PromotableReplicas(client);
      requirementsByClient.set(client, replicas);
      replicas.#watch(client);
    }
    return replicas;
  }

  /** Bumped at each connection's close: a `WAIT` sent in a later epoch than its write may run on another connection. */
  get epoch(): number {
    return this.#epoch;
  }

  /**
   * The count the last write on `server` (a name from {@link replicaServerOf}) judged in this epoch, 0 when none did:
   * the `WAIT` to send with the next write. Starts the Sentinels being asked when their answer is due, so that
   * {@link judge} finds it in.
   */
  expected(server: string, timeoutMs: number): number {
    this.#sentinels?.refresh(timeoutMs);
    const judged = this.#judged.get(server);
    return judged?.epoch === this.#epoch ? judged.replicas : 0;
  }

  /**
   * What a write on `key` must reach, from `info`, the `INFO replication` its server answered right after it, sent in
   * `epoch`. Kept for {@link expected} while the epoch has not changed since.
   */
  async judge(
    server: string,
    key: string,
    info: string,
    epoch: number,
    timeoutMs: number,
  ): Promise<ReplicaRequirement> {
    const last = this.#lastRead;
    const state = last?.info === info ? last.state : replicationStateIn(info);
    this.#lastRead = { info, state };
    let requirement: ReplicaRequirement = {
      replicas: state.counted,
      reason:
        state.counted > state.listed
          ? `the master lists ${state.listed} of the ${state.counted} replicas it had under its replication ID, so a failover ` +
            'may have replaced it (ADR 1102)'
          : undefined,
    };
    if (this.client.isCluster === true) {
      const slot = clusterHashSlot(key);
      const known = Math.max(0, (this.client.slots?.[slot]?.length ?? 1) - 1);
      if (known > requirement.replicas) {
        requirement = {
          replicas: known,
          reason: `the Cluster's node table lists ${known} replica${known === 1 ? '' : 's'} of the master of slot ${slot}, which could be promoted in its place`,
        };
      }
    } else if (this.#sentinels !== undefined) {
      const known = await this.#sentinels.count(timeoutMs);
      if (known === undefined && requirement.replicas === 0) {
        requirement = {
          replicas: 1,
          reason: `no Sentinel the client knows answered SENTINEL REPLICAS within ${timeoutMs} ms, so which replicas could be promoted is unknown`,
        };
      } else if (known !== undefined && known > requirement.replicas) {
        requirement = {
          replicas: known,
          reason: `the Sentinels list ${known} replica${known === 1 ? '' : 's'} that could be promoted in the master's place (SENTINEL REPLICAS)`,
        };
      }
    } else if (requirement.replicas === 0 && state.backlogActive) {
      requirement = {
        replicas: 1,
        reason:
          'the server lists no replica but its replication backlog is active (it had a replica within repl-backlog-ttl, or was one), and ' +
          'with no Sentinel or Cluster to ask, nothing tells a master cut off from a replica that was promoted from one that may grant',
      };
    }
    if (epoch === this.#epoch) {
      this.#judged.set(server, { epoch, replicas: requirement.replicas });
    }
    return requirement;
  }

  /**
   * A new epoch at each connection that closes. A Cluster's new slot map changes no connection: a write it sends to
   * another node is waited for there, in the write's own pipeline, or by a `WAIT` routed by the write's key.
   */
  #watch(client: ReconnectingClient): void {
    const newEpoch = (): void => {
      this.#epoch += 1;
    };
    const watchNode = (node: ReconnectingClient): void => {
      node.on?.('close', newEpoch);
    };
    client.on?.('close', newEpoch);
    client.on?.('+node', watchNode);
    client.nodes?.('all').forEach(watchNode);
  }
}

/**
 * The text of the `INFO replication` reply at `index` of a pipeline's results, routed there behind a keyed command
 * (first); throws that command's error ({@link assertRouted}), the reply's error, or an error for a reply that is not text.
 */
export function replicationInfoAt(
  client: SlotMapClient,
  results: readonly [Error | null, unknown][] | null,
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

/**
 * The replicas of an `INFO replication` reply ({@link replicasListedIn}), and the most this process saw listed under
 * the same replication ID when that is more (ADR 1102): waiting for them fails, so a master a failover replaced behind
 * its back acknowledges nothing instead of acknowledging writes it will lose. Redis starts a new ID when it restarts
 * and after `repl-backlog-ttl` (an hour by default) without replicas.
 */
export function replicationStateIn(info: string): ReplicationState {
  const listed = replicasListedIn(info);
  const backlogActive = /^repl_backlog_active:1\r?$/mu.test(info);
  const history = /^master_replid:([0-9a-fA-F]+)\r?$/mu.exec(info)?.[1];
  if (history === undefined) {
    return { listed, counted: listed, backlogActive };
  }
  const seen = replicasSeenUnder.get(history) ?? 0;
  if (listed > 0) {
    replicasSeenUnder.delete(history);
    replicasSeenUnder.set(history, Math.max(seen, listed));
    if (replicasSeenUnder.size > replicatedHistoriesKept) {
      replicasSeenUnder.delete(replicasSeenUnder.keys().next().value as string);
    }
  }
  return { listed, counted: Math.max(seen, listed), backlogActive };
}

/**
 * The replicas of an `INFO replication` reply: its `slaveN:` lines with a listening port, in any state. One still
 * synchronising may be promoted with what it has, so it is waited for too. A backup taken with `redis-cli --rdb` shows
 * up as port 0; counting it would make writes wait for a tool that never acknowledges. A reply without `slaveN:` lines
 * (a mock) counts `connected_slaves`, and 0 without that.
 */
export function replicasListedIn(info: string): number {
  const lines = [...info.matchAll(/^slave\d+:.*$/gmu)];
  if (lines.length === 0) {
    return Number(/^connected_slaves:(\d+)\r?$/mu.exec(info)?.[1] ?? 0);
  }
  return lines.filter(([line]) => !/(^|[:,])port=0,/u.test(line)).length;
}

/**
 * Which server a count is kept for: the one server behind a client that is not a Cluster; on a Cluster, the hash
 * slot of `key`, since each master has replicas of its own and only the slot says which master holds the key.
 */
export function replicaServerOf(key: string, isCluster: boolean): string {
  return isCluster ? `slot ${clusterHashSlot(key)}` : 'server';
}

/** A pipeline that can route a `WAIT` to the master of a key: a `GET` of the key, then the `WAIT`. */
export interface KeyRoutedWaitPipeline {
  get(key: string): unknown;
  wait(numreplicas: number, timeoutMs: number): unknown;
  exec(): Promise<[Error | null, unknown][] | null>;
}

/**
 * `WAIT replicas timeoutMs` on the connection of `key`'s master, on a pipeline of `client`'s behind a `GET` of the key,
 * whose routing takes it there on a Cluster too, following its redirections to where the key is ({@link execRouted}).
 * The count acknowledged, or why there is none: a redirection not followed ({@link assertRouted}), `WAIT`'s error or
 * a reply that is not a count.
 */
export async function waitOnMasterOf(
  client: RoutingClient,
  newPipeline: () => KeyRoutedWaitPipeline,
  key: string,
  replicas: number,
  timeoutMs: number,
): Promise<{ readonly acknowledged: number | undefined; readonly error?: Error }> {
  const results = await execRouted(client, newPipeline, (pipeline) => {
    pipeline.get(key);
    pipeline.wait(replicas, timeoutMs);
  });
  try {
    assertRouted(client, results);
  } catch (error) {
    return { acknowledged: undefined, error: error instanceof Error ? error : new Error(String(error)) };
  }
  const [error, acknowledged] = results[1] ?? [new Error('The pipeline gave no reply to WAIT.'), undefined];
  if (error !== null || typeof acknowledged !== 'number') {
    return {
      acknowledged: undefined,
      error: error ?? new Error(`WAIT answered ${describeValue(acknowledged)}, not a count.`),
    };
  }
  return { acknowledged };
}
