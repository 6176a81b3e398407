import type { Cluster, Redis } from 'ioredis';
import { expect } from 'vitest';
import {
  CheckpointWriteCondition,
  RedisCheckpointStorage,
  RedisLeaseStrategy,
  type WaitForReplicasOption,
} from '../../../runtime/index.js';
import { redisLeaseKeys } from '../../../runtime/store-layout-entry.js';
import { withAdminConnection, type RedisAddress } from './admin-connection.js';

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

/**
 * Each variant's old holder is granted the lease (or refused) and writes `checkpoint` (or is refused), during a cut:
 * what its write reports. Opted out, both must be made: the negative control's precondition.
 */
export async function grantAndWrite(
  oldHolders: OldHolders,
  lease: string,
  checkpoint: string,
): Promise<Record<Variant, unknown>> {
  const [granted, written] = await Promise.all([
    Promise.all(variants.map((variant) => oldHolders.strategies[variant].register(lease, 'old-holder'))),
    Promise.all(
      variants.map((variant) =>
        oldHolders.storages[variant].save(checkpoint, 'during@2', CheckpointWriteCondition.notOlderThan(2)).then(
          () => 'accepted' as const,
          (error: unknown) => error,
        ),
      ),
    ),
  ]);
  expect(granted[variants.indexOf('opted out')], 'opted out: granted during the cut').toBe(true);
  expect(written[variants.indexOf('opted out')], 'opted out: written during the cut').toBe('accepted');
  // A refused holder tries again at its strategy's next renewal tick, which all its leases share, so possibly a moment
  // later, on whatever master its client finds then: a grant on the promoted master that would hide whether the one
  // refused during the cut reached it. Each trial measures that grant alone.
  await Promise.all(
    variants
      .filter((_, index) => granted[index] !== true)
      .map((variant) => oldHolders.strategies[variant].unregister(lease, 'old-holder')),
  );
  return { default: written[variants.indexOf('default')], 'opted out': written[variants.indexOf('opted out')] };
}

/** Each trial's precondition: the old holders' grant and write really are missing on `promoted`. */
export async function expectMissingOn(promoted: RedisAddress, lease: string, checkpoint: string): Promise<void> {
  await withAdminConnection(promoted, async (admin) => {
    for (const variant of variants) {
      expect(await admin.exists(redisLeaseKeys(prefixOf(variant), lease).token), `${variant}: token key`).toBe(0);
      expect(await admin.get(`${prefixOf(variant)}${checkpoint}`), `${variant}: checkpoint`).toBe('before@1');
    }
  });
}
