import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  PostgresDualAnchorCheckpointStore,
  type DualAnchorCheckpointStore,
} from '../../../runtime/index.js';
import { describeDualAnchorCheckpointStoreConformance } from '../../../runtime/testing/index.js';
import {
  freshTableName,
  startPgBouncer,
  startPostgresServer,
  testPool,
  type PgBouncerProcess,
  type PostgresServerProcess,
} from '../../support/postgres/index.js';

// The dual-anchor store through a real pgbouncer in transaction mode with fewer server connections than clients, so
// consecutive statements of one client routinely run on different server sessions, as behind RDS Proxy.

const { notOlderThan } = CheckpointWriteCondition;
const at = new Date('2024-05-01T10:00:00.123Z');
let server: PostgresServerProcess | undefined;
let bouncer: PgBouncerProcess | undefined;
/** Two applications' pools on the same pgbouncer: one writer of each anchor. */
const pools: pg.Pool[] = [];

beforeAll(async () => {
  server = await startPostgresServer();
  bouncer = await startPgBouncer(server, { poolMode: 'transaction', poolSize: 3 });
  pools.push(testPool(bouncer, { max: 8 }), testPool(bouncer, { max: 8 }));
});

afterAll(async () => {
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

async function freshStore(prefix: string): Promise<PostgresDualAnchorCheckpointStore> {
  const store = new PostgresDualAnchorCheckpointStore(pool(0), { table: freshTableName(prefix) });
  await store.createTable();
  return store;
}

describeDualAnchorCheckpointStoreConformance(
  'PostgresDualAnchorCheckpointStore through pgbouncer in transaction mode',
  () => freshStore('bouncer_anchors'),
);

const transactions = new Map<DualAnchorCheckpointStore, pg.PoolClient>();
describeDualAnchorCheckpointStoreConformance(
  'PostgresDualAnchorCheckpointStore.withinTransaction(client) through pgbouncer in transaction mode',
  async () => {
    const store = await freshStore('bouncer_anchors_tx');
    const client = await pool(1).connect();
    await client.query('BEGIN');
    const bound = store.withinTransaction(client);
    transactions.set(bound, client);
    return bound;
  },
  {
    teardown: async (store) => {
      const client = transactions.get(store);
      transactions.delete(store);
      try {
        const { command } = await (client?.query('COMMIT') ?? Promise.reject(new Error('no transaction client')));
        expect(command).toBe('COMMIT');
      } finally {
        client?.release();
      }
    },
  },
);

describe('two anchor writers on two pools through pgbouncer in transaction mode', () => {
  it('1,000 writes of each anchor, fenced and not, with a reader: no acknowledged write is ever undone', async () => {
    const table = freshTableName('bouncer_two_writers');
    const seenWriter = new PostgresDualAnchorCheckpointStore(pool(0), { table });
    const processedWriter = new PostgresDualAnchorCheckpointStore(pool(1), { table });
    const reader = new PostgresDualAnchorCheckpointStore(pool(0), { table });
    await seenWriter.createTable();
    const writes = 1_000;
    const acknowledged = { seen: -1, processed: -1 };
    const regressions: string[] = [];
    const run = { active: true };
    const sequenceOf = (token: unknown): number => (token as { sequence?: number } | null)?.sequence ?? -1;
    const reading = (async () => {
      while (run.active) {
        const floor = { ...acknowledged };
        const record = await reader.findByStreamName('shared');
        const seen = sequenceOf(record?.lastSeenToken ?? null);
        const processed = sequenceOf(record?.lastProcessedToken ?? null);
        if (seen < floor.seen || processed < floor.processed) {
          regressions.push(`read seen ${seen} / processed ${processed} after ${floor.seen} / ${floor.processed}`);
        }
      }
    })();
    await Promise.all([
      (async () => {
        for (let sequence = 0; sequence < writes; sequence += 1) {
          await seenWriter.saveSeen('shared', { sequence }, at, at);
          acknowledged.seen = sequence;
        }
      })(),
      (async () => {
        for (let sequence = 0; sequence < writes; sequence += 1) {
          await processedWriter.saveProcessed('shared', { sequence }, at, undefined, notOlderThan(1));
          acknowledged.processed = sequence;
        }
      })(),
    ]);
    run.active = false;
    await reading;
    expect(regressions.slice(0, 5)).toEqual([]);
    expect(await reader.findByStreamName('shared')).toMatchObject({
      lastSeenToken: { sequence: writes - 1 },
      lastProcessedToken: { sequence: writes - 1 },
    });
  }, 120_000);

  it('after a newer token wrote the seen anchor, the older holder on the other pool moves neither anchor', async () => {
    const table = freshTableName('bouncer_fenced');
    const oldHolder = new PostgresDualAnchorCheckpointStore(pool(0), { table });
    const newHolder = new PostgresDualAnchorCheckpointStore(pool(1), { table });
    await oldHolder.createTable();
    await oldHolder.saveProcessed('orders', 'p-by-4', at, at, notOlderThan(4));
    await newHolder.saveSeen('orders', 's-by-5', at, at, notOlderThan(5));
    for (const stale of [
      oldHolder.saveProcessed('orders', 'p-by-4-late', at, at, notOlderThan(4)),
      oldHolder.resetAfterHistoryLost('orders', null, 'p-by-4', at, notOlderThan(4)),
    ]) {
      await expect(stale).rejects.toThrow(CheckpointWriteConditionNotFulfilledError);
    }
    expect(await newHolder.findByStreamName('orders')).toMatchObject({
      lastSeenToken: 's-by-5',
      lastProcessedToken: 'p-by-4',
    });
  });
});
