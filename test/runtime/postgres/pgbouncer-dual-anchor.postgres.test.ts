import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, CheckpointWriteConditionNotFulfilledError } from '../../../runtime/index.js';
import { PostgresDualAnchorCheckpointStore } from '../../../runtime/dual-anchor-entry.js';
import { describeDualAnchorCheckpointStoreConformance } from '../../../runtime/testing/index.js';
import { expectAnchorWritersNeverUndoEachOther } from '../../support/dual-anchor/two-anchor-writers.js';
import { freshTableName, insideTransactions, pgBouncerForThisFile } from '../../support/postgres/index.js';

// The dual-anchor store through a real pgbouncer in transaction mode with fewer server connections than clients, so
// consecutive statements of one client routinely run on different server sessions, as behind RDS Proxy.

const { notOlderThan } = CheckpointWriteCondition;
const at = new Date('2024-05-01T10:00:00.123Z');
/** Two applications' pools on the same pgbouncer: one writer of each anchor. */
const postgres = pgBouncerForThisFile();
const pool = (index: 0 | 1): pg.Pool => postgres.pool(index);

async function freshStore(prefix: string): Promise<PostgresDualAnchorCheckpointStore> {
  const store = new PostgresDualAnchorCheckpointStore(pool(0), { table: freshTableName(prefix) });
  await store.createTable();
  return store;
}

describeDualAnchorCheckpointStoreConformance(
  'PostgresDualAnchorCheckpointStore through pgbouncer in transaction mode',
  () => freshStore('bouncer_anchors'),
);

const transactions = insideTransactions(
  () => pool(1),
  async (client) => (await freshStore('bouncer_anchors_tx')).withinTransaction(client),
);
describeDualAnchorCheckpointStoreConformance(
  'PostgresDualAnchorCheckpointStore.withinTransaction(client) through pgbouncer in transaction mode',
  transactions.create,
  { teardown: transactions.teardown },
);

describe('two anchor writers on two pools through pgbouncer in transaction mode', () => {
  it('1,000 writes of each anchor, fenced and not, with a reader: no acknowledged write is ever undone', async () => {
    const table = freshTableName('bouncer_two_writers');
    const seenWriter = new PostgresDualAnchorCheckpointStore(pool(0), { table });
    const processedWriter = new PostgresDualAnchorCheckpointStore(pool(1), { table });
    const reader = new PostgresDualAnchorCheckpointStore(pool(0), { table });
    await seenWriter.createTable();
    await expectAnchorWritersNeverUndoEachOther({ seenWriter, processedWriter, reader, writes: 1_000 });
  }, 120_000);

  it('after a newer token wrote the seen anchor, the older holder on the other pool moves neither anchor', async () => {
    const table = freshTableName('bouncer_fenced');
    const oldHolder = new PostgresDualAnchorCheckpointStore(pool(0), { table });
    const newHolder = new PostgresDualAnchorCheckpointStore(pool(1), { table });
    await oldHolder.createTable();
    await oldHolder.saveProcessed('orders', 'p-by-4', at, at, notOlderThan(4));
    await newHolder.saveSeen('orders', 's-by-5', at, at, notOlderThan(5));
    await expect(oldHolder.saveProcessed('orders', 'p-by-4-late', at, at, notOlderThan(4))).rejects.toThrow(
      CheckpointWriteConditionNotFulfilledError,
    );
    await expect(oldHolder.resetAfterHistoryLost('orders', null, 'p-by-4', at, notOlderThan(4))).rejects.toThrow(
      CheckpointWriteConditionNotFulfilledError,
    );
    expect(await newHolder.findByStreamName('orders')).toMatchObject({
      lastSeenToken: 's-by-5',
      lastProcessedToken: 'p-by-4',
    });
  });
});
