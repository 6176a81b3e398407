import type pg from 'pg';
import { expect } from 'vitest';
import { PostgresDualAnchorCheckpointStore, type DualAnchorCheckpointStore } from '../../../runtime/index.js';
import { describeDualAnchorCheckpointStoreConformance } from '../../../runtime/testing/index.js';
import { freshTableName, postgresForThisFile } from '../../support/postgres/index.js';

const postgres = postgresForThisFile();
const database = (): pg.Pool => postgres.pool();

async function freshStore(prefix: string): Promise<PostgresDualAnchorCheckpointStore> {
  const store = new PostgresDualAnchorCheckpointStore(database(), { table: freshTableName(prefix) });
  await store.createTable();
  return store;
}

describeDualAnchorCheckpointStoreConformance('PostgresDualAnchorCheckpointStore over a pg.Pool', () =>
  freshStore('anchors_pool'),
);

const transactions = new Map<DualAnchorCheckpointStore, pg.PoolClient>();
describeDualAnchorCheckpointStoreConformance(
  'PostgresDualAnchorCheckpointStore.withinTransaction(client) inside BEGIN … COMMIT',
  async () => {
    const store = await freshStore('anchors_tx');
    const client = await database().connect();
    await client.query('BEGIN');
    const bound = store.withinTransaction(client);
    transactions.set(bound, client);
    return bound;
  },
  {
    // COMMIT, not ROLLBACK: a statement that failed inside the case would have aborted the transaction, and COMMIT then fails the case.
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
