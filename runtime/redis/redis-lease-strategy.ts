import { LeaseKeepingStrategy, type LeaseKeepingStrategyOptions } from '../leases/lease-keeping-strategy.js';
import { assertRedisLeaseKeyPrefix, defaultRedisLeaseKeyPrefix, type RedisLeaseKeys } from './redis-lease-keys.js';
import { RedisLeaseStore, type RedisLeaseClient, type WaitForReplicas } from './redis-lease-store.js';

/** Options of {@link RedisLeaseStrategy}. */
export interface RedisLeaseStrategyOptions extends LeaseKeepingStrategyOptions {
  /** Prefix of the lease and token keys, without braces; `checkpoint-fencing:lease:` by default. */
  readonly keyPrefix?: string;
  /**
   * After minting a token, `WAIT` until `replicas` replicas have it, for at most `timeoutMs`; a token that did not
   * reach them is handed back unused. Narrows, but cannot close, the window in which a failover re-mints a token.
   */
  readonly waitForReplicas?: WaitForReplicas;
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
    assertWaitForReplicas(options.waitForReplicas);
    const store = new RedisLeaseStore(client, keyPrefix, options.waitForReplicas);
    super(store, options);
    this.#store = store;
  }

  /** The lease and token keys of `subscriptionId`, for operators and tests. */
  leaseKeys(subscriptionId: string): RedisLeaseKeys {
    return this.#store.keys(subscriptionId);
  }
}

function assertWaitForReplicas(wait: WaitForReplicas | undefined): void {
  if (wait === undefined) {
    return;
  }
  if (
    !Number.isSafeInteger(wait.replicas) ||
    wait.replicas < 1 ||
    !Number.isSafeInteger(wait.timeoutMs) ||
    wait.timeoutMs < 1
  ) {
    throw new RangeError(
      `waitForReplicas needs a whole number of replicas ≥ 1 and a timeoutMs ≥ 1 (WAIT with timeout 0 blocks forever); got ` +
        `${JSON.stringify(wait)}. Leave the option out to skip WAIT.`,
    );
  }
}
