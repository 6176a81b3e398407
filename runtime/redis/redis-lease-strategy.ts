import {
  defaultLeaseTimeMs,
  LeaseKeepingStrategy,
  type LeaseKeepingStrategyOptions,
} from '../leases/lease-keeping-strategy.js';
import { assertRedisLeaseKeyPrefix, defaultRedisLeaseKeyPrefix, type RedisLeaseKeys } from './redis-lease-keys.js';
import { RedisLeaseStore, type RedisLeaseClient } from './redis-lease-store.js';
import { resolveWaitForReplicas, type WaitForReplicasOption } from './wait-for-replicas.js';

/** Options of {@link RedisLeaseStrategy}. */
export interface RedisLeaseStrategyOptions extends LeaseKeepingStrategyOptions {
  /** Prefix of the lease and token keys, without braces; `checkpoint-fencing:lease:` by default. */
  readonly keyPrefix?: string;
  /**
   * After minting a token, `WAIT` until replicas have it; a token that did not reach them in time is handed back
   * unused, so a failover cannot mint it again for someone else. `'auto'` (the default) waits for every replica that
   * could be promoted (read with `INFO replication` right after the grant, and from the Sentinels or the Cluster's node
   * table), for at most a tenth of the lease time and never more than 500 ms; `{ replicas, timeoutMs }` waits for a
   * fixed number; `false` never waits (unsafe on failover). doc/redis.md says what each topology needs (ADRs 1101–1106).
   */
  readonly waitForReplicas?: WaitForReplicasOption;
}

/**
 * A competing-consumer strategy whose leases live in Redis (a standalone or replicated server, or a Cluster through
 * an ioredis `Cluster`). The caller owns the client and closes it after `shutdown()`.
 */
export class RedisLeaseStrategy extends LeaseKeepingStrategy {
  readonly #store: RedisLeaseStore;

  /** @throws TypeError for a key prefix with braces; RangeError for a bad lease time or `waitForReplicas`. */
  constructor(client: RedisLeaseClient, options: RedisLeaseStrategyOptions = {}) {
    const keyPrefix = options.keyPrefix ?? defaultRedisLeaseKeyPrefix;
    assertRedisLeaseKeyPrefix(keyPrefix);
    const wait = resolveWaitForReplicas(
      options.waitForReplicas,
      defaultWaitTimeoutMs(options.leaseTimeMs ?? defaultLeaseTimeMs),
      'RedisLeaseStrategy',
    );
    const store = new RedisLeaseStore(client, keyPrefix, wait);
    super(store, options);
    this.#store = store;
  }

  /** The lease and token keys of `subscriptionId`, for operators and tests. */
  leaseKeys(subscriptionId: string): RedisLeaseKeys {
    return this.#store.keys(subscriptionId);
  }
}

/**
 * `'auto'`'s `WAIT` timeout: a tenth of the lease time, at most 500 ms. A grant's wait counts against the lease it
 * grants (`hasLock` is measured from when the acquire was sent), and `WAIT` holds up the connection's other commands.
 */
function defaultWaitTimeoutMs(leaseTimeMs: number): number {
  return Math.max(1, Math.min(500, Math.floor(leaseTimeMs / 10)));
}
