import {
  PostgresCheckpointStorage,
  PostgresLeaseStrategy,
  RedisCheckpointStorage,
  RedisLeaseStrategy,
  type CheckpointStorage,
  type CompetingConsumerStrategy,
  type LeaseKeepingStrategyOptions,
} from '../../runtime/index.js';
import type { SoakTarget } from './soak-messages.js';
import { createSoakPool } from './soak-postgres-pool.js';
import { createSoakClient } from './soak-redis-client.js';

/** One process's connection to the soak's backend: its checkpoint storage, lease strategies on the same connection, and how to close it. */
export interface SoakBackend {
  readonly storage: CheckpointStorage;
  strategy(options: LeaseKeepingStrategyOptions): CompetingConsumerStrategy;
  close(): Promise<void>;
}

/** Connects to `target` the way a production process would: Redis with the soak's client settings, PostgreSQL through one pool. */
export function connectSoakBackend(target: SoakTarget): SoakBackend {
  if (target.mode === 'postgres') {
    const pool = createSoakPool(target.connectionString);
    const wait = target.waitForStandbys === false ? { waitForStandbys: false as const } : {};
    return {
      storage: new PostgresCheckpointStorage(pool, { table: target.checkpointTable, ...wait }),
      strategy: (options) => new PostgresLeaseStrategy(pool, { ...options, table: target.leaseTable, ...wait }),
      close: () => pool.end(),
    };
  }
  const client = createSoakClient(target);
  client.on('error', () => {
    // Connection errors surface on the calls that fail; the harness causes them on purpose.
  });
  // Only the Sentinel soak's negative control turns the wait off; every other run keeps the default.
  const wait = target.mode === 'sentinel' && !target.waitForReplicas ? { waitForReplicas: false as const } : {};
  return {
    storage: new RedisCheckpointStorage(client, wait),
    strategy: (options) => new RedisLeaseStrategy(client, { ...options, ...wait }),
    close: async () => {
      client.disconnect();
    },
  };
}
