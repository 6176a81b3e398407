import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  PostgresCheckpointStorage,
  PostgresLeaseStrategy,
} from '../../../runtime/index.js';
import { describeCheckpointStorageConformance } from '../../../runtime/testing/index.js';
import {
  freshTableName,
  insideTransactions,
  rowCount,
  testPool,
  useSharedPostgres,
} from '../../support/postgres/index.js';

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;

const postgres = useSharedPostgres();
const database = (): pg.Pool => postgres.pool();

async function freshStorage(prefix: string): Promise<PostgresCheckpointStorage> {
  const storage = new PostgresCheckpointStorage(database(), { table: freshTableName(prefix) });
  await storage.createTable();
  return storage;
}

describeCheckpointStorageConformance('PostgresCheckpointStorage over a pg.Pool', () =>
  freshStorage('conformance_pool'),
);

const transactions = insideTransactions(database, async (client) => {
  const storage = new PostgresCheckpointStorage(database(), { table: freshTableName('conformance_tx') });
  await storage.createTable();
  return storage.withinTransaction(client);
});
describeCheckpointStorageConformance(
  'PostgresCheckpointStorage.withinTransaction(client) inside BEGIN … COMMIT',
  transactions.create,
  { teardown: transactions.teardown },
);

describe('PostgresCheckpointStorage schema', () => {
  it('creates the documented columns and checks, idempotently', async () => {
    const table = freshTableName('schema');
    const storage = new PostgresCheckpointStorage(database(), { table });
    await storage.createTable();
    await storage.createTable();
    await database().query(PostgresCheckpointStorage.createTableSql({ table }));
    const { rows } = await database().query<{ column_name: string; data_type: string; is_nullable: string }>(
      'SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position',
      [table],
    );
    expect(rows).toEqual([
      { column_name: 'subscription_id', data_type: 'text', is_nullable: 'NO' },
      { column_name: 'checkpoint', data_type: 'text', is_nullable: 'YES' },
      { column_name: 'version', data_type: 'numeric', is_nullable: 'YES' },
    ]);
    const { rows: key } = await database().query<{ attname: string }>(
      `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
       WHERE i.indrelid = $1::regclass AND i.indisprimary`,
      [table],
    );
    expect(key).toEqual([{ attname: 'subscription_id' }]);
  });

  it('uses the default table name, and a schema when given', async () => {
    expect(PostgresCheckpointStorage.createTableSql()).toMatch(
      /^CREATE TABLE IF NOT EXISTS "checkpoint_fencing_checkpoints" \(/u,
    );
    await database().query('CREATE SCHEMA IF NOT EXISTS fencing');
    const storage = new PostgresCheckpointStorage(database(), { schema: 'fencing', table: 'checkpoints' });
    await storage.createTable();
    await storage.save('orders', 'offset-1', notOlderThan(1));
    const { rows } = await database().query(
      'SELECT subscription_id, checkpoint, version::text FROM fencing.checkpoints',
    );
    expect(rows).toEqual([{ subscription_id: 'orders', checkpoint: 'offset-1', version: '1' }]);
  });

  it('takes a table name of the full 63 bytes, its constraint names kept apart', async () => {
    const table = `t${String(process.pid).padEnd(62, 'x')}`;
    const storage = new PostgresCheckpointStorage(database(), { table });
    await storage.createTable();
    await storage.save('orders', 'offset-1', notOlderThan(1));
    const { rows } = await database().query<{ conname: string }>(
      "SELECT conname FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'c' ORDER BY conname",
      [`"${table}"`],
    );
    expect(rows.map(({ conname }) => conname)).toEqual([
      expect.stringMatching(/^t\d+x*_checkpoint_or_version$/u),
      expect.stringMatching(/^t\d+x*_version_check$/u),
    ]);
  });

  it('refuses a version that is not a non-negative integer written by hand', async () => {
    const table = freshTableName('checks');
    const storage = new PostgresCheckpointStorage(database(), { table });
    await storage.createTable();
    await storage.save('orders', 'offset-1', notOlderThan(3));
    for (const bad of ['-1', '1.5', '2.0', 'NaN', 'Infinity']) {
      await expect(database().query(`UPDATE "${table}" SET version = $1::numeric`, [bad])).rejects.toMatchObject({
        code: '23514',
      });
    }
    await expect(database().query(`INSERT INTO "${table}" (subscription_id) VALUES ('nothing')`)).rejects.toMatchObject(
      { code: '23514' },
    );
    expect(await storage.writeVersion('orders')).toBe(3n);
  });

  it('creates nothing on a first write: a missing table is an error that says what to run', async () => {
    const table = freshTableName('missing');
    const storage = new PostgresCheckpointStorage(database(), { table });
    const error = await storage.save('orders', 'offset-1', any()).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).toContain('run `await storage.createTable()` or apply `createTableSql()`');
    expect((error as Error).cause).toMatchObject({ code: '42P01' });
    await expect(storage.read('orders')).rejects.toThrow(/createTable\(\)/u);
    const { rows } = await database().query('SELECT to_regclass($1) AS found', [table]);
    expect(rows).toEqual([{ found: null }]);
  });

  it('a missing schema: the first write and createTable() both say CREATE SCHEMA, and after it createTable() works', async () => {
    const schema = freshTableName('no_schema');
    const storage = new PostgresCheckpointStorage(database(), { schema, table: 'checkpoints' });
    const createTable =
      'run `await storage.createTable()` or apply `createTableSql()` ' +
      '(PostgresCheckpointStorage.createTableSql({ table, schema })) in your migrations';
    await expect(storage.save('orders', 'cp', notOlderThan(1))).rejects.toThrow(
      new Error(
        `Table ${schema}.checkpoints does not exist (PostgreSQL 42P01: relation "${schema}.checkpoints" does not exist). ` +
          `Create it: ${createTable}. If schema "${schema}" does not exist either, run \`CREATE SCHEMA "${schema}"\` ` +
          'first: createTable() creates the table, not its schema. Nothing is created behind your back on a first write.',
      ),
    );
    const onCreate = await storage.createTable().catch((error: unknown) => error);
    expect(onCreate).toEqual(
      new Error(
        `Schema "${schema}" of table ${schema}.checkpoints does not exist (PostgreSQL 3F000: schema "${schema}" does not ` +
          `exist). createTable() creates the table, not its schema: run \`CREATE SCHEMA "${schema}"\` (or name an ` +
          `existing schema in the options), then ${createTable}.`,
      ),
    );
    expect((onCreate as Error).cause).toMatchObject({ code: '3F000' });
    await database().query(`CREATE SCHEMA "${schema}"`);
    await storage.createTable();
    await expect(storage.save('orders', 'cp', notOlderThan(1))).resolves.toBe('cp');
  });

  it('says so when the table lacks a column, as a hand-written one does', async () => {
    const table = freshTableName('legacy');
    await database().query(`CREATE TABLE "${table}" (subscription_id text PRIMARY KEY, checkpoint text NOT NULL)`);
    const storage = new PostgresCheckpointStorage(database(), { table });
    await storage.save('orders', 'offset-1', any());
    await expect(storage.save('orders', 'offset-2', notOlderThan(1))).rejects.toThrow(/lacks a column/u);
  });
});

describe('PostgresCheckpointStorage versions', () => {
  it('compares versions beyond 2**64 exactly, and stores them as given', async () => {
    const storage = await freshStorage('big');
    const huge = 2n ** 64n + 1n;
    await storage.save('orders', 'a', notOlderThan(huge));
    await expect(storage.save('orders', 'b', notOlderThan(2n ** 64n))).rejects.toMatchObject({ storedVersion: huge });
    await storage.save('orders', 'c', notOlderThan(huge));
    await storage.save('orders', 'd', notOlderThan(2n ** 100n));
    expect(await storage.writeVersion('orders')).toBe(2n ** 100n);
    expect(await storage.read('orders')).toBe('d');
    await storage.advanceWriteVersion('orders', 2n ** 100n + 1n);
    await expect(storage.advanceWriteVersion('orders', 2n ** 100n)).rejects.toMatchObject({
      storedVersion: 2n ** 100n + 1n,
    });
  });

  it('stays exact when the application parses numeric columns as JavaScript numbers', async () => {
    const types = new pg.TypeOverrides();
    types.setTypeParser(pg.types.builtins.NUMERIC, parseFloat);
    const lossy = testPool(postgres, { max: 2, types });
    try {
      const storage = new PostgresCheckpointStorage(lossy, { table: freshTableName('lossy') });
      await storage.createTable();
      await storage.save('orders', 'a', notOlderThan(2n ** 53n + 1n));
      expect(await storage.writeVersion('orders')).toBe(2n ** 53n + 1n);
      await expect(storage.save('orders', 'b', notOlderThan(2n ** 53n))).rejects.toMatchObject({
        storedVersion: 2n ** 53n + 1n,
      });
    } finally {
      await lossy.end();
    }
  });

  it('a refusal under REPEATABLE READ is judged on a row the transaction can see, or fails to serialize', async () => {
    const table = freshTableName('repeatable_read');
    const storage = new PostgresCheckpointStorage(database(), { table });
    await storage.createTable();
    await storage.save('orders', 'a', notOlderThan(1n));
    const client = await database().connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await client.query('SELECT 1');
      // Committed after this transaction's snapshot: the transaction cannot see version 9.
      await storage.save('orders', 'b', notOlderThan(9n));
      const error: unknown = await storage
        .withinTransaction(client)
        .save('orders', 'zombie', notOlderThan(5n))
        .catch((caught: unknown) => caught);
      // Never a refusal that names a version the transaction cannot see: PostgreSQL refuses to serialize instead.
      expect(error).toMatchObject({ code: '40001' });
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await storage.read('orders')).toBe('b');
  });

  it('a write a trigger suppressed is no refusal: its outcome is reported as unknown', async () => {
    const table = freshTableName('suppressed');
    const storage = new PostgresCheckpointStorage(database(), { table });
    await storage.createTable();
    await storage.save('orders', 'a', notOlderThan(1n));
    await database().query(
      `CREATE FUNCTION ${table}_skip() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NULL; END'`,
    );
    await database().query(
      `CREATE TRIGGER ${table}_skip BEFORE UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_skip()`,
    );
    const error: unknown = await storage.save('orders', 'b', notOlderThan(2n)).catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    expect(String(error)).toBe(
      `Error: A notOlderThan(2) write to table ${table} for subscription "orders" wrote no row, yet the stored ` +
        'version is 1, which would not refuse it: a trigger on the table suppressed the write, or the row was deleted ' +
        'meanwhile. The write may or may not have happened.',
    );
  });

  it('keeps a fence recorded before any checkpoint as a row without one, which read does not show', async () => {
    const storage = await freshStorage('fence_only');
    await storage.advanceWriteVersion('orders', 4n);
    expect(await storage.read('orders')).toBeUndefined();
    await expect(storage.save('orders', 'zombie', ifAbsent())).resolves.toBe('zombie');
    await expect(storage.save('orders', 'late', ifAbsent())).rejects.toMatchObject({ storedVersion: 4n });
  });

  it('deleteCheckpointKeepingVersion leaves a fenced row as a fence, and deletes a row no version fences', async () => {
    const storage = await freshStorage('keep_version');
    await storage.save('orders', '9', notOlderThan(7n));
    await storage.save('unfenced', '3', any());
    await storage.deleteCheckpointKeepingVersion('orders');
    await storage.deleteCheckpointKeepingVersion('unfenced');
    await storage.deleteCheckpointKeepingVersion('never-written');
    expect(await storage.read('orders')).toBeUndefined();
    expect(await storage.writeVersion('orders')).toBe(7n);
    await expect(storage.save('orders', 'zombie', notOlderThan(6n))).rejects.toThrow(
      CheckpointWriteConditionNotFulfilledError,
    );
    await expect(storage.save('orders', 'start', ifAbsent())).resolves.toBe('start');
    expect(await storage.writeVersion('orders')).toBe(7n);
    expect([await storage.read('unfenced'), await storage.writeVersion('unfenced')]).toEqual([undefined, undefined]);
  });
});

describe('PostgresCheckpointStorage clients', () => {
  it('works over a pg.Client and a PoolClient as well as a Pool', async () => {
    const table = freshTableName('clients');
    await new PostgresCheckpointStorage(database(), { table }).createTable();
    const client = new pg.Client({ connectionString: postgres.connectionString });
    await client.connect();
    const checkedOut = await database().connect();
    try {
      await new PostgresCheckpointStorage(client, { table }).save('orders', 'from-client', notOlderThan(1));
      await new PostgresCheckpointStorage(checkedOut, { table }).save('orders', 'from-pool-client', notOlderThan(2));
      expect(await new PostgresCheckpointStorage(database(), { table }).read('orders')).toBe('from-pool-client');
    } finally {
      checkedOut.release();
      await client.end();
    }
  });

  it('sends overlapping calls on one pg.Client, shared with a PostgresLeaseStrategy, one after another', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(`${warning.name}: ${warning.message}`);
    };
    process.on('warning', onWarning);
    const client = new pg.Client({ connectionString: postgres.connectionString });
    await client.connect();
    const strategy = new PostgresLeaseStrategy(client, { table: freshTableName('one_client_leases') });
    try {
      const storage = new PostgresCheckpointStorage(client, { table: freshTableName('one_client') });
      await Promise.all([storage.createTable(), strategy.createTable()]);
      // What a DurableSubscription and its PostgresLeaseStrategy on the same client do all the time.
      const results = await Promise.all([
        storage.save('a', 'cp-a', notOlderThan(1)),
        strategy.register('a', 'node-a'),
        storage.save('b', 'cp-b', notOlderThan(1)),
        storage.read('a'),
        storage.save('a', 'late', notOlderThan(0)).catch((error: unknown) => error),
        storage.writeVersion('a'),
      ]);
      expect(results.slice(0, 4)).toEqual(['cp-a', true, 'cp-b', 'cp-a']);
      expect(results[4]).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
      expect(results[5]).toBe(1n);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
      await strategy.shutdown();
      await client.end();
    }
    expect(warnings).toEqual([]);
  });

  it('refuses a pool for withinTransaction, and bad names or clients at construction', () => {
    const storage = new PostgresCheckpointStorage(database());
    expect(() => storage.withinTransaction(database())).toThrow(/not the pool/u);
    for (const table of ['', 'orders; DROP TABLE x', 'a"b', '1abc', 'x'.repeat(64), 'séance']) {
      expect(() => new PostgresCheckpointStorage(database(), { table })).toThrow(TypeError);
      expect(() => PostgresCheckpointStorage.createTableSql({ table })).toThrow(TypeError);
    }
    expect(() => new PostgresCheckpointStorage(database(), { schema: 'public.x' })).toThrow(/schema/u);
    expect(() => new PostgresCheckpointStorage({} as never)).toThrow(/query\(text, values\)/u);
  });
});

describe('PostgresCheckpointStorage inside the caller’s transaction', () => {
  it('a zombie with an older token loses its projection rows with its refused checkpoint; the new holder keeps both', async () => {
    const storage = await freshStorage('zombie');
    const projection = freshTableName('order_projection');
    await database().query(
      `CREATE TABLE "${projection}" (order_id text PRIMARY KEY, status text NOT NULL, projected_by text NOT NULL)`,
    );
    const project = async (client: pg.PoolClient, by: string, orders: readonly number[]): Promise<void> => {
      for (const order of orders) {
        await client.query(
          `INSERT INTO "${projection}" (order_id, status, projected_by) VALUES ($1, 'shipped', $2)
           ON CONFLICT (order_id) DO UPDATE SET status = EXCLUDED.status, projected_by = EXCLUDED.projected_by`,
          [`order-${order}`, by],
        );
      }
    };
    await storage.save('orders', 'offset-100', notOlderThan(7));

    // The zombie (token 7) starts its transaction and projects events 101-105, then stalls before its checkpoint.
    const zombie = await database().connect();
    const holder = await database().connect();
    try {
      await zombie.query('BEGIN');
      await project(zombie, 'zombie', [101, 102, 103, 104, 105]);

      // Meanwhile the lease moved on: the new holder (token 8) projects 106-110 and checkpoints, in its own transaction.
      await holder.query('BEGIN');
      await project(holder, 'new-holder', [106, 107, 108, 109, 110]);
      await storage.withinTransaction(holder).save('orders', 'offset-110', notOlderThan(8));
      await holder.query('COMMIT');

      // The zombie wakes up and checkpoints with its old token: refused, so its transaction rolls back.
      const refusal = await storage
        .withinTransaction(zombie)
        .save('orders', 'offset-105', notOlderThan(7))
        .catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
      expect(refusal).toMatchObject({ storedVersion: 8n });
      await zombie.query('ROLLBACK');
    } finally {
      zombie.release();
      holder.release();
    }

    const { rows } = await database().query<{ order_id: string; projected_by: string }>(
      `SELECT order_id, projected_by FROM "${projection}" ORDER BY order_id`,
    );
    expect(rows).toEqual(
      [106, 107, 108, 109, 110].map((order) => ({ order_id: `order-${order}`, projected_by: 'new-holder' })),
    );
    expect(await storage.read('orders')).toBe('offset-110');
    expect(await storage.writeVersion('orders')).toBe(8n);
  });

  it('a checkpoint written in a transaction that rolls back was never written', async () => {
    const storage = await freshStorage('rollback');
    const client = await database().connect();
    try {
      await client.query('BEGIN');
      await storage.withinTransaction(client).save('orders', 'offset-1', notOlderThan(1));
      expect(await storage.withinTransaction(client).read('orders')).toBe('offset-1');
      expect(await storage.read('orders')).toBeUndefined();
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await storage.read('orders')).toBeUndefined();
    expect(await storage.writeVersion('orders')).toBeUndefined();
  });

  it('a newer writer waits for an open transaction that holds the row, then is judged against what it committed', async () => {
    const storage = await freshStorage('row_lock');
    const older = await database().connect();
    try {
      await older.query('BEGIN');
      await storage.withinTransaction(older).save('orders', 'offset-5', notOlderThan(5));
      const newer = storage.save('orders', 'offset-4', notOlderThan(4)).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await older.query('COMMIT');
      expect(await newer).toMatchObject({ storedVersion: 5n });
    } finally {
      older.release();
    }
    expect(await storage.read('orders')).toBe('offset-5');
  });

  it('refuses every statement once its client is released to the pool, and writes nothing in autocommit', async () => {
    // One connection, so the pool lends the released client again, here to a transaction of someone else.
    const pool = testPool(postgres, { max: 1 });
    const table = freshTableName('released');
    const storage = new PostgresCheckpointStorage(pool, { table });
    try {
      await storage.createTable();
      const client = await pool.connect();
      await client.query('BEGIN');
      const bound = storage.withinTransaction(client);
      await bound.save('orders', 'offset-1', notOlderThan(1));
      await client.query('COMMIT');
      client.release();
      const refusal =
        /^PostgresCheckpointStorage\.withinTransaction\(client\) \(table released_\d+_\d+\) refuses to run a statement: its client was released to the pool \(client\.release\(\)\), so the transaction it was bound to is over.* Bind the storage to a client inside an open transaction .*, or write outside a transaction through the storage built over the pool\.$/u;
      await expect(bound.save('orders', 'offset-2', notOlderThan(2))).rejects.toThrow(refusal);
      await expect(bound.save('orders', 'offset-3', any())).rejects.toThrow(refusal);
      await expect(bound.delete('orders')).rejects.toThrow(refusal);
      const again = await pool.connect();
      try {
        expect(again).toBe(client);
        await again.query('BEGIN');
        await expect(bound.save('orders', 'offset-4', notOlderThan(4))).rejects.toThrow(refusal);
        // A binding made in the new transaction writes in it.
        await storage.withinTransaction(again).save('orders', 'offset-5', notOlderThan(5));
        await again.query('ROLLBACK');
      } finally {
        again.release();
      }
      expect(await storage.read('orders')).toBe('offset-1');
      expect(await storage.writeVersion('orders')).toBe(1n);
      expect(await rowCount(pool, table)).toBe(1);
    } finally {
      await pool.end();
    }
  });
});
