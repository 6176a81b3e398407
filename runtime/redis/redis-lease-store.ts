import { describeValue, quoteText } from '../describe-value.js';
import type { HeldLease, LeaseStore } from '../leases/lease-store.js';
import { clusterHashSlot } from './cluster-hash-slot.js';
import { assertRouted, execRouted, isRedirection, type SlotMapClient } from './cluster-redirection.js';
import {
  PromotableReplicas,
  replicaServerOf,
  replicationInfoAt,
  replicationStateIn,
  waitOnMasterOf,
  type KeyRoutedWaitPipeline,
  type ReplicatedClient,
} from './promotable-replicas.js';
import { redisLeaseKeys, type RedisLeaseKeys } from './redis-lease-keys.js';
import {
  acquireLeaseScript,
  raiseTokenFloorScript,
  refreshLeasesScript,
  releaseLeaseScript,
} from './redis-lease-scripts.js';
import type { WaitForReplicas } from './wait-for-replicas.js';

/**
 * The client a `RedisLeaseStrategy` works over: an ioredis `Redis` or `Cluster` (a standalone or replicated server, a
 * Sentinel client, or a Cluster), which the caller owns. Typed by the few commands the strategy sends, so the package
 * needs no ioredis types.
 */
export interface RedisLeaseClient extends ReplicatedClient, SlotMapClient {
  eval(script: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  pipeline(): RedisLeasePipeline;
}

/**
 * The part of an ioredis pipeline `waitForReplicas` uses: the grant's script followed by `INFO replication` (the
 * replica set right after it), and a `GET` of the lease key to route a `WAIT` to the key's master (on a Cluster).
 */
export interface RedisLeasePipeline extends KeyRoutedWaitPipeline {
  eval(script: string, numkeys: number, ...keysAndArgs: string[]): RedisLeasePipeline;
  info(section: string): RedisLeasePipeline;
}

/** Leases and token counters in Redis; one script per step, lease expiry by the server's own clock (`PX`). */
export class RedisLeaseStore implements LeaseStore {
  readonly #client: RedisLeaseClient;
  readonly #keyPrefix: string;
  readonly #waitForReplicas: WaitForReplicas | undefined;
  readonly #promotable: PromotableReplicas;

  /** `waitForReplicas` resolved: `undefined` sends no `WAIT`. */
  constructor(client: RedisLeaseClient, keyPrefix: string, waitForReplicas: WaitForReplicas | undefined) {
    this.#client = client;
    this.#keyPrefix = keyPrefix;
    this.#waitForReplicas = waitForReplicas;
    this.#promotable = PromotableReplicas.of(client);
  }

  keys(subscriptionId: string): RedisLeaseKeys {
    return redisLeaseKeys(this.#keyPrefix, subscriptionId);
  }

  /**
   * Under `'auto'` the script goes out with `INFO replication` behind it in one pipeline, and the grant waits for every
   * replica that could be promoted as the server lists them right after it, and the topology knows them (ADR 1104–1106).
   * A poll that finds the lease taken reads the list too: the replicas a master had under its replication ID are
   * remembered (ADR 1102), and a node that never read them before a failover would not know it mints on a master that
   * lost them.
   */
  async acquire(subscriptionId: string, owner: string, leaseTimeMs: number): Promise<bigint | undefined> {
    const keys = this.keys(subscriptionId);
    const wait = this.#waitForReplicas;
    const args = [keys.lease, keys.token, owner, String(leaseTimeMs)] as const;
    if (wait?.replicas !== 'auto') {
      const epoch = this.#promotable.epoch;
      const [outcome, token] = parseAcquireReply(await this.#client.eval(acquireLeaseScript, 2, ...args), keys);
      if (outcome === 'taken') {
        return undefined;
      }
      if (wait !== undefined) {
        await this.#confirmOnReplicas(
          subscriptionId,
          owner,
          token,
          keys,
          wait,
          { replicas: wait.replicas, reason: undefined },
          epoch,
        );
      }
      return token;
    }
    const server = replicaServerOf(keys.lease, this.#client.isCluster === true);
    const epoch = this.#promotable.epoch;
    this.#promotable.expected(server, wait.timeoutMs);
    const replies = await execRouted(
      this.#client,
      () => this.#client.pipeline(),
      (pipeline) => pipeline.eval(acquireLeaseScript, 2, ...args).info('replication'),
    );
    assertRouted(this.#client, replies);
    const [outcome, token] = parseAcquireReply(replies[0]?.[1], keys);
    if (outcome === 'taken') {
      replicationStateIn(replicationInfoAt(this.#client, replies, 1));
      return undefined;
    }
    let requirement;
    try {
      requirement = await this.#promotable.judge(
        server,
        keys.lease,
        replicationInfoAt(this.#client, replies, 1),
        epoch,
        wait.timeoutMs,
      );
    } catch (error) {
      await this.release(subscriptionId, owner, token);
      throw error;
    }
    if (requirement.replicas > 0) {
      await this.#confirmOnReplicas(subscriptionId, owner, token, keys, wait, requirement, epoch);
    }
    return token;
  }

  /**
   * One script for every lease. On a Cluster each partition's keys carry their own hash tag (so that `inspect`,
   * `repair` and `reset` find them as any subscription's), so the script goes once per hash slot, and the scripts for
   * the slots one master serves go in one pipeline: one round trip per master, however many leases. Slots are grouped
   * as ioredis groups a pipeline's (by the master and replicas its slot map lists). A script whose slot is being moved
   * did not run: it alone goes again, following the redirection (ADR 0104); so does each of a pipeline ioredis refused.
   * No `WAIT`: a renewal mints nothing that a failover could mint again.
   */
  async refreshAll(leases: readonly HeldLease[], leaseTimeMs: number): Promise<readonly boolean[]> {
    const cluster = this.#client.isCluster === true;
    const byNodes = new Map<string, Map<number, number[]>>();
    leases.forEach(({ subscriptionId }, index) => {
      const slot = cluster ? clusterHashSlot(this.keys(subscriptionId).lease) : 0;
      const nodes = this.#client.slots?.[slot]?.join(';') ?? String(slot);
      const bySlot = byNodes.get(nodes) ?? new Map<number, number[]>();
      const indexes = bySlot.get(slot) ?? [];
      indexes.push(index);
      bySlot.set(slot, indexes);
      byNodes.set(nodes, bySlot);
    });
    const renewed = new Array<boolean>(leases.length).fill(false);
    await Promise.all(
      [...byNodes.values()].map(async (bySlot) => {
        const scripts = [...bySlot.values()].map((indexes) => {
          const held = indexes.map((index) => leases[index] as HeldLease);
          const keysAndArgs = [
            ...held.map(({ subscriptionId }) => this.keys(subscriptionId).lease),
            String(leaseTimeMs),
            ...held.map(({ owner, token }) => `${token} ${owner}`),
          ];
          return {
            indexes,
            queue: (pipeline: RedisLeasePipeline) => pipeline.eval(refreshLeasesScript, held.length, ...keysAndArgs),
          };
        });
        const pipeline = this.#client.pipeline();
        scripts.forEach(({ queue }) => queue(pipeline));
        const replies =
          (await pipeline.exec().catch((error: unknown) => {
            // A MOVED changes ioredis's node list of every slot of the moved one's former range, but regroups only the
            // moved one: it then refuses a pipeline its own slot map groups together. Nothing ran.
            if (error instanceof Error && error.message.includes('same slots allocation group')) {
              return [];
            }
            throw error;
          })) ?? [];
        await Promise.all(
          scripts.map(async ({ indexes, queue }, script) => {
            let results = replies.slice(script, script + 1);
            if (results.length === 0 || isRedirection(results[0]?.[0])) {
              // The other slots' renewals stand; this one alone goes again.
              results = await execRouted(this.#client, () => this.#client.pipeline(), queue);
            }
            assertRouted(this.#client, results);
            const reply = results[0]?.[1];
            indexes.forEach((index, at) => {
              renewed[index] = Array.isArray(reply) && reply[at] === 1;
            });
          }),
        );
      }),
    );
    return renewed;
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
   * WAIT on the node that minted the token, on the connection the script went out on: a token not yet on enough
   * replicas is handed back unused, because a failover to a replica without it would mint the same token again. A
   * reconnection since the script (a new `epoch`) hands it back too: a `WAIT` on a new connection counts none of the
   * old one's writes and would answer at once.
   */
  async #confirmOnReplicas(
    subscriptionId: string,
    owner: string,
    token: bigint,
    keys: RedisLeaseKeys,
    wait: WaitForReplicas,
    { replicas, reason }: { readonly replicas: number; readonly reason: string | undefined },
    epoch: number,
  ): Promise<void> {
    const { acknowledged, error } =
      epoch === this.#promotable.epoch
        ? await waitOnMasterOf(this.#client, () => this.#client.pipeline(), keys.lease, replicas, wait.timeoutMs)
        : { acknowledged: undefined, error: new Error('the client reconnected after the grant') };
    if (acknowledged !== undefined && acknowledged >= replicas) {
      return;
    }
    await this.release(subscriptionId, owner, token);
    throw new Error(
      `Lease ${quoteText(keys.lease)} was not taken: token ${token} reached ${acknowledged ?? 'no'} ` +
        `of the ${replicas} replica${replicas === 1 ? '' : 's'} waitForReplicas waits for within ${wait.timeoutMs} ms` +
        `${error === undefined ? '' : ` (${String(error)})`}${reason === undefined ? '' : `; ${replicas === 1 ? 'it is' : 'they are'} waited for because ${reason}`}, ` +
        'so a failover could mint it again. The strategy tries again; check that every replica that could be promoted is up ' +
        'and replicating (npx checkpoint-fencing inspect --redis). One removed for good is waited for until this process ' +
        'restarts (it remembers the replicas a master listed under its replication ID), once the Sentinels or the Cluster ' +
        'no longer list it (SENTINEL RESET, CLUSTER FORGET). waitForReplicas false takes leases without waiting (unsafe ' +
        'on failover; doc/redis.md).',
    );
  }
}

/** The largest value Redis's `INCR` can produce: 2**63 - 1. */
const largestMintableToken = 2n ** 63n - 1n;

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
