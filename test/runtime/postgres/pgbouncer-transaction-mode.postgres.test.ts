import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  PostgresCheckpointStorage,
  PostgresLeaseStrategy,
} from '../../../runtime/index.js';
import {
  describeCheckpointStorageConformance,
  describeCompetingConsumerStrategyConformance,
} from '../../../runtime/testing/index.js';
import { eventually } from '../../support/leases/event-log.js';
import {
  freshTableName,
  startPgBouncer,
  startPostgresServer,
  testPool,
  type PgBouncerProcess,
  type PostgresServerProcess,
} from '../../support/postgres/index.js';

// Everything here goes through a real pgbouncer in transaction mode with fewer server connections than clients, so
// consecutive statements of one client routinely run on different server sessions, as behind RDS Proxy.

const { notOlderThan } = CheckpointWriteCondition;
let server: PostgresServerProcess | undefined;
let bouncer: PgBouncerProcess | undefined;
/** Two applications' pools on the same pgbouncer: two holders, two pools. */
const pools: pg.Pool[] = [];
const strategies: PostgresLeaseStrategy[] = [];

beforeAll(async () => {
  server = await startPostgresServer();
  bouncer = await startPgBouncer(server, { poolMode: 'transaction', poolSize: 3 });
  pools.push(testPool(bouncer, { max: 8 }), testPool(bouncer, { max: 8 }));
});

afterAll(async () => {
  await Promise.all(strategies.splice(0).map((strategy) => strategy.shutdown()));
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
  await bouncer?.stop();
  await server?.stop();
});

function pool(index: 0 | 1): pg.Pool {
  const chosen = pools[index];
  if (chosen === undefined) {
    throw new Error('pgbouncer of this suite did not start; see the beforeAll error.');
  }
  return chosen;
}

describeCheckpointStorageConformance('PostgresCheckpointStorage through pgbouncer in transaction mode', async () => {
  const storage = new PostgresCheckpointStorage(pool(0), { table: freshTableName('bouncer_conformance') });
  await storage.createTable();
  return storage;
});

let nodes = 0;
describeCompetingConsumerStrategyConformance(
  'PostgresLeaseStrategy through pgbouncer in transaction mode',
  async () => {
    const table = freshTableName('bouncer_leases');
    await new PostgresLeaseStrategy(pool(0), { table }).createTable();
    return {
      leaseTimeMs: 1_000,
      // Nodes alternate between the two pools.
      node: () => new PostgresLeaseStrategy(pool((nodes++ % 2) as 0 | 1), { table, leaseTimeMs: 1_000 }),
      deleteLease: async (subscriptionId) => {
        await pool(1).query(`UPDATE "${table}" SET owner = NULL, expires_at = NULL WHERE subscription_id = $1`, [
          subscriptionId,
        ]);
      },
    };
  },
);

describe('two holders on two pools through pgbouncer in transaction mode', () => {
  it('one holds at a time; after a take-over the old holder’s write is refused', async () => {
    const table = freshTableName('bouncer_checkpoints');
    const leaseTable = freshTableName('bouncer_holders');
    await new PostgresCheckpointStorage(pool(0), { table }).createTable();
    await new PostgresLeaseStrategy(pool(0), { table: leaseTable }).createTable();
    const holders = ([0, 1] as const).map((index) => {
      const strategy = new PostgresLeaseStrategy(pool(index), { table: leaseTable, leaseTimeMs: 900 });
      strategies.push(strategy);
      return { name: `holder-${index}`, strategy, storage: new PostgresCheckpointStorage(pool(index), { table }) };
    });
    await Promise.all(holders.map(({ name, strategy }) => strategy.register('orders', name)));

    // Over several lease times, with refreshes on both pools, never two holders at once.
    const deadline = Date.now() + 3_000;
    while (Date.now() < deadline) {
      expect(holders.filter(({ name, strategy }) => strategy.hasLock('orders', name))).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const first = holders.find(({ name, strategy }) => strategy.hasLock('orders', name));
    const second = holders.find((holder) => holder !== first);
    if (first === undefined || second === undefined) {
      throw new Error('expected exactly one holder');
    }
    const oldToken = first.strategy.fencingToken('orders') ?? -1n;
    await first.storage.save('orders', 'offset-10', notOlderThan(oldToken));

    // The lease is freed behind the holder's back; the other pool's holder takes over and fences on acquire.
    await pool(1).query(`UPDATE "${leaseTable}" SET owner = NULL, expires_at = NULL`);
    await eventually('the other holder takes over', () => second.strategy.hasLock('orders', second.name));
    const newToken = second.strategy.fencingToken('orders') ?? -1n;
    expect(newToken).toBeGreaterThan(oldToken);
    await second.storage.advanceWriteVersion('orders', newToken);
    await second.storage.save('orders', 'offset-12', notOlderThan(newToken));

    const refusal = await first.storage
      .save('orders', 'offset-11', notOlderThan(oldToken))
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    expect(await first.storage.read('orders')).toBe('offset-12');
  });

  it('a transaction through pgbouncer keeps the checkpoint and the projection together', async () => {
    const storage = new PostgresCheckpointStorage(pool(0), { table: freshTableName('bouncer_tx') });
    await storage.createTable();
    const projection = freshTableName('bouncer_projection');
    await pool(0).query(`CREATE TABLE "${projection}" (order_id text PRIMARY KEY)`);
    await storage.save('orders', 'offset-5', notOlderThan(5));
    const client = await pool(1).connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO "${projection}" VALUES ('order-4')`);
      await expect(storage.withinTransaction(client).save('orders', 'offset-4', notOlderThan(4))).rejects.toThrow(
        CheckpointWriteConditionNotFulfilledError,
      );
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect((await pool(0).query(`SELECT * FROM "${projection}"`)).rows).toEqual([]);
  });
});

describe('why the strategy holds no session state: advisory locks behind pgbouncer', () => {
  it('a session advisory lock taken through one pool is "taken" again through another (negative control)', async () => {
    if (server === undefined) {
      throw new Error('no server');
    }
    // One server connection shared by every client: what transaction pooling does under load.
    const single = await startPgBouncer(server, { poolMode: 'transaction', poolSize: 1 });
    const first = testPool(single, { max: 1 });
    const second = testPool(single, { max: 1 });
    try {
      const take = async (on: pg.Pool): Promise<boolean> =>
        (await on.query<{ taken: boolean }>('SELECT pg_try_advisory_lock(4242) AS taken')).rows[0]?.taken === true;
      expect(await take(first)).toBe(true);
      expect(await take(second)).toBe(true);
    } finally {
      await Promise.all([first.end(), second.end()]);
      await single.stop();
    }
  });
});
