import { describeValue, quoteText } from '../describe-value.js';
import type { LeaseStore } from '../leases/lease-store.js';
import { assertRouted, execRouted, type SlotMapClient } from './cluster-redirection.js';
import {
  ConnectedReplicaCounts,
  replicaServerOf,
  replicasToWaitFor,
  replicationInfoAt,
  type ReconnectingClient,
} from './connected-replicas.js';
import { redisLeaseKeys, type RedisLeaseKeys } from './redis-lease-keys.js';
import {
  acquireLeaseScript,
  raiseTokenFloorScript,
  refreshLeaseScript,
  releaseLeaseScript,
} from './redis-lease-scripts.js';
import type { WaitForReplicas } from './wait-for-replicas.js';

/**
 * The client a `RedisLeaseStrategy` works over: an ioredis `Redis` or `Cluster` (a standalone or replicated server, or
 * a Cluster), which the caller owns. Typed by the few commands the strategy sends, so the package needs no ioredis types.
 */
export interface RedisLeaseClient extends ReconnectingClient, SlotMapClient {
  eval(script: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  pipeline(): RedisLeasePipeline;
  /** `true` on an ioredis `Cluster`: replica counts are then kept per hash slot. */
  readonly isCluster?: boolean;
}

/**
 * The part of an ioredis pipeline `waitForReplicas` uses: a keyed command to route it (to the key's master, on a
 * Cluster), then `WAIT`, or `INFO replication` to count that master's replicas.
 */
export interface RedisLeasePipeline {
  pttl(key: string): RedisLeasePipeline;
  wait(replicas: number, timeoutMs: number): RedisLeasePipeline;
  info(section: string): RedisLeasePipeline;
  exec(): Promise<[Error | null, unknown][] | null>;
}

/** Leases and token counters in Redis; one script per step, lease expiry by the server's own clock (`PX`). */
export class RedisLeaseStore implements LeaseStore {
  readonly #client: RedisLeaseClient;
  readonly #keyPrefix: string;
  readonly #waitForReplicas: WaitForReplicas | undefined;
  readonly #replicaCounts: ConnectedReplicaCounts;

  /** `waitForReplicas` resolved: `undefined` sends no `WAIT`. */
  constructor(client: RedisLeaseClient, keyPrefix: string, waitForReplicas: WaitForReplicas | undefined) {
    this.#client = client;
    this.#keyPrefix = keyPrefix;
    this.#waitForReplicas = waitForReplicas;
    this.#replicaCounts = ConnectedReplicaCounts.of(client);
  }

  keys(subscriptionId: string): RedisLeaseKeys {
    return redisLeaseKeys(this.#keyPrefix, subscriptionId);
  }

  async acquire(subscriptionId: string, owner: string, leaseTimeMs: number): Promise<bigint | undefined> {
    const keys = this.keys(subscriptionId);
    const reply = await this.#client.eval(acquireLeaseScript, 2, keys.lease, keys.token, owner, String(leaseTimeMs));
    const [outcome, token] = parseAcquireReply(reply, keys);
    if (outcome === 'taken') {
      this.#keepReplicaCountRead(keys.lease);
      return undefined;
    }
    if (this.#waitForReplicas !== undefined) {
      await this.#confirmOnReplicas(subscriptionId, owner, token, keys, this.#waitForReplicas);
    }
    return token;
  }

  async refresh(subscriptionId: string, owner: string, token: bigint, leaseTimeMs: number): Promise<boolean> {
    const { lease } = this.keys(subscriptionId);
    const reply = await this.#client.eval(refreshLeaseScript, 1, lease, `${token} ${owner}`, String(leaseTimeMs));
    return reply === 1;
  }

  async release(subscriptionId: string, owner: string, token: bigint): Promise<void> {
    const { lease } = this.keys(subscriptionId);
    await this.#client.eval(releaseLeaseScript, 1, lease, `${token} ${owner}`);
  }

  /**
   * One script that sets the counter to `version` unless it is already there or above; the next `INCR` then mints
   * `version + 1`. Redis counts with signed 64-bit `INCR`, so a floor at or above 2**63 - 1 could never be minted above.
   */
  async raiseFencingTokenAbove(subscriptionId: string, version: bigint): Promise<void> {
    const keys = this.keys(subscriptionId);
    if (version >= largestMintableToken) {
      throw new RangeError(
        `Cannot raise the token floor of ${quoteText(keys.token)} above ${version}: Redis mints tokens with INCR, which stops at ` +
          `${largestMintableToken}. A stored version this large was not written with a token from this strategy; delete the checkpoint or its version key.`,
      );
    }
    const reply = await this.#client.eval(raiseTokenFloorScript, 2, keys.lease, keys.token, String(version));
    if (reply === 'raised' || reply === 'kept') {
      return;
    }
    if (typeof reply === 'string' && reply.startsWith('invalid:')) {
      throw new Error(
        `Token counter ${quoteText(keys.token)} holds ${quoteText(reply.slice('invalid:'.length))}, not a canonical decimal, so its floor ` +
          'was not raised and nothing was written. Only this strategy writes it; delete it (tokens then start above the stored version again).',
      );
    }
    throw unexpectedReply(reply, keys);
  }

  /**
   * WAIT on the node that minted the token: a pipeline whose only keyed command names the lease key is routed to
   * that key's master on a Cluster too. A token not yet on enough replicas is handed back unused, because a
   * failover to a replica without it would mint the same token again. With `'auto'` on a server that has had no
   * replica there is nothing to wait for.
   */
  async #confirmOnReplicas(
    subscriptionId: string,
    owner: string,
    token: bigint,
    keys: RedisLeaseKeys,
    wait: WaitForReplicas,
  ): Promise<void> {
    const server = replicaServerOf(keys.lease, this.#client.isCluster === true);
    const replicas = await replicasToWaitFor(wait, this.#replicaCounts, server, () =>
      this.#readReplicationInfo(keys.lease),
    );
    if (replicas === 0) {
      return;
    }
    const replies = await this.#routed((pipeline) => pipeline.pttl(keys.lease).wait(replicas, wait.timeoutMs));
    const [error, acknowledged] = waitReplyOf(this.#client, replies);
    if (error !== null || typeof acknowledged !== 'number' || acknowledged < replicas) {
      // Replicas may have gone (a failover, say): count them again before the next grant.
      this.#replicaCounts.forget(server);
      await this.release(subscriptionId, owner, token);
      throw new Error(
        `Lease ${quoteText(keys.lease)} was not taken: token ${token} reached ${typeof acknowledged === 'number' ? acknowledged : 'no'} ` +
          `of the ${replicas} replicas waitForReplicas asks for within ${wait.timeoutMs} ms` +
          `${error === null ? '' : ` (${String(error)})`}, so a failover could mint it again. ` +
          'The strategy tries again; check replication. A master that reports no replica but had one under its replication ID is ' +
          'still waited for, since a failover may have replaced it (ADR 1102): attach a replica; if it was removed for good, restart ' +
          'this process or set waitForReplicas to false to take leases without waiting (unsafe on failover).',
      );
    }
  }

  /**
   * Keeps reading the replica count (at most once a second, in the background) while this node only waits for a lease
   * held elsewhere. Under `'auto'` the count remembers the replication IDs it saw replicas under (ADR 1102); a node
   * that never read it before a failover would not know that the master it then mints on lost its replica.
   */
  #keepReplicaCountRead(key: string): void {
    if (this.#waitForReplicas?.replicas !== 'auto') {
      return;
    }
    const count = this.#replicaCounts.count(replicaServerOf(key, this.#client.isCluster === true), () =>
      this.#readReplicationInfo(key),
    );
    if (typeof count !== 'number') {
      // A failed read is not cached; the next grant reads again and reports the error there.
      count.catch(() => undefined);
    }
  }

  /** `INFO replication` of the master that holds `key`, routed like the `WAIT` after it. */
  async #readReplicationInfo(key: string): Promise<string> {
    return replicationInfoAt(this.#client, await this.#routed((pipeline) => pipeline.pttl(key).info('replication')), 1);
  }

  /** A pipeline routed by its first command's key, with its Cluster redirections followed ({@link execRouted}). */
  #routed(queue: (pipeline: RedisLeasePipeline) => unknown): Promise<[Error | null, unknown][]> {
    return execRouted(this.#client, () => this.#client.pipeline(), queue);
  }
}

/** The largest value Redis's `INCR` can produce: 2**63 - 1. */
const largestMintableToken = 2n ** 63n - 1n;

/** The `WAIT` reply of a `[PTTL, WAIT]` pipeline; the routing error instead when `PTTL` was redirected ({@link assertRouted}). */
function waitReplyOf(client: RedisLeaseClient, replies: [Error | null, unknown][] | null): [Error | null, unknown] {
  try {
    assertRouted(client, replies);
  } catch (error) {
    return [error instanceof Error ? error : new Error(String(error)), undefined];
  }
  return replies?.[1] ?? [new Error('no reply to WAIT'), undefined];
}

function parseAcquireReply(reply: unknown, keys: RedisLeaseKeys): ['granted' | 'held' | 'taken', bigint] {
  if (Array.isArray(reply) && reply.length === 2) {
    const [outcome, token] = reply as unknown[];
    if (
      (outcome === 'granted' || outcome === 'held' || outcome === 'taken') &&
      typeof token === 'string' &&
      /^\d+$/u.test(token)
    ) {
      return [outcome, BigInt(token)];
    }
  }
  throw unexpectedReply(reply, keys);
}

function unexpectedReply(reply: unknown, keys: RedisLeaseKeys): Error {
  return new Error(
    `Unexpected reply from the lease script for ${quoteText(keys.lease)}: ${describeValue(reply)}. ` +
      `Was ${quoteText(keys.lease)} or ${quoteText(keys.token)} written by something else? They must hold only what this strategy writes.`,
  );
}
