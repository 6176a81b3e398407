import type { Cluster, Redis } from 'ioredis';
import { RedisCheckpointStorage, RedisLeaseStrategy, type WaitForReplicasOption } from '../../../runtime/index.js';

/**
 * The two ways a failover trial runs every grant and write, side by side on keys of their own: with the default
 * `waitForReplicas`, and opted out of it (the negative control).
 */
export const variants = ['default', 'opted out'] as const;
/** One of {@link variants}. */
export type Variant = (typeof variants)[number];

const waitOption: Record<Variant, WaitForReplicasOption | undefined> = { default: undefined, 'opted out': false };

/** What one failover did to a variant's old holder. */
export interface TrialOutcome {
  readonly duplicatedToken: boolean;
  readonly acceptedWriteLost: boolean;
}

/** The lease strategies and checkpoint storages whose grant and write happen during the cut, one of each a variant. */
export interface OldHolders {
  readonly strategies: Record<Variant, RedisLeaseStrategy>;
  readonly storages: Record<Variant, RedisCheckpointStorage>;
}

/** The key prefix of `variant`'s leases, checkpoints and versions. */
export function prefixOf(variant: Variant): string {
  return variant === 'default' ? 'waiting:' : 'opted-out:';
}

/** Clients made by `connect` (a Sentinel client, a Cluster client) and the strategies made over them, closed together. */
export class FailoverTrialClients<Client extends Redis | Cluster> {
  readonly #clients: Client[] = [];
  readonly #strategies: RedisLeaseStrategy[] = [];

  constructor(
    private readonly connect: () => Client,
    private readonly leaseTimeMs: number,
  ) {}

  client(): Client {
    const client = this.connect();
    client.on('error', () => undefined);
    this.#clients.push(client);
    return client;
  }

  /** A lease strategy of `variant` on a client of its own. */
  strategy(variant: Variant): RedisLeaseStrategy {
    const strategy = new RedisLeaseStrategy(this.client(), {
      keyPrefix: prefixOf(variant),
      leaseTimeMs: this.leaseTimeMs,
      onError: () => undefined,
      ...(waitOption[variant] === undefined ? {} : { waitForReplicas: waitOption[variant] }),
    });
    this.#strategies.push(strategy);
    return strategy;
  }

  /** A checkpoint storage of `variant` on `client`, a client of its own unless given. */
  storage(variant: Variant, client: Client = this.client()): RedisCheckpointStorage {
    return new RedisCheckpointStorage(client, {
      keyPrefix: prefixOf(variant),
      versionKeyPrefix: `${prefixOf(variant)}version:`,
      ...(waitOption[variant] === undefined ? {} : { waitForReplicas: waitOption[variant] }),
    });
  }

  /** One strategy and one storage a variant, each on a client of its own. */
  oldHolders(): OldHolders {
    return {
      strategies: { default: this.strategy('default'), 'opted out': this.strategy('opted out') },
      storages: { default: this.storage('default'), 'opted out': this.storage('opted out') },
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.#strategies.map((strategy) => strategy.shutdown()));
    for (const client of this.#clients) {
      client.disconnect();
    }
  }
}
