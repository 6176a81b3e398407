import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, CheckpointWriteConditionNotFulfilledError } from '../../../runtime/index.js';
import {
  decodeDualAnchorCheckpoint,
  emptyStoredDualAnchorFields,
  PostgresDualAnchorCheckpointStore,
  type DualAnchorCheckpoint,
} from '../../../runtime/dual-anchor-entry.js';
import { describeDualAnchorCheckpointStoreConformance } from '../../../runtime/testing/index.js';
import {
  freshTableName,
  insideTransactions,
  useSharedPostgres,
  RecordingPostgresClient,
  rowCount,
  testPool,
} from '../../support/postgres/index.js';

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;
const at = new Date('2024-05-01T10:00:00.123Z');
const later = new Date('2024-05-01T10:00:05.456Z');

const postgres = useSharedPostgres();
const database = (): pg.Pool => postgres.pool();

async function freshStore(
  prefix: string,
  client: pg.Pool | RecordingPostgresClient = database(),
): Promise<PostgresDualAnchorCheckpointStore> {
  const store = new PostgresDualAnchorCheckpointStore(client, { table: freshTableName(prefix) });
  await store.createTable();
  return store;
}

/** A store on a fresh table, and the table's name for checking it by hand. */
async function freshTable(
  prefix: string,
  client: pg.Pool | RecordingPostgresClient = database(),
): Promise<{ store: PostgresDualAnchorCheckpointStore; table: string }> {
  const table = freshTableName(prefix);
  const store = new PostgresDualAnchorCheckpointStore(client, { table });
  await store.createTable();
  return { store, table };
}

/** What a store holds for a stream no write has given a value yet. */
function emptyRecord(streamName: string): DualAnchorCheckpoint {
  return decodeDualAnchorCheckpoint(streamName, emptyStoredDualAnchorFields);
}

describeDualAnchorCheckpointStoreConformance('PostgresDualAnchorCheckpointStore over a pg.Pool', () =>
  freshStore('anchors_pool'),
);

const transactions = insideTransactions(database, async (client) =>
  (await freshStore('anchors_tx')).withinTransaction(client),
);
describeDualAnchorCheckpointStoreConformance(
  'PostgresDualAnchorCheckpointStore.withinTransaction(client) inside BEGIN … COMMIT',
  transactions.create,
  { teardown: transactions.teardown },
);

describe('PostgresDualAnchorCheckpointStore schema', () => {
  it('creates the documented columns, idempotently, with the stream name as the key', async () => {
    const { store, table } = await freshTable('anchors_schema');
    await store.createTable();
    await database().query(PostgresDualAnchorCheckpointStore.createTableSql({ table }));
    const { rows } = await database().query<{
      column_name: string;
      data_type: string;
      is_nullable: string;
      column_default: string | null;
    }>(
      'SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position',
      [table],
    );
    const column = (name: string, type: string, nullable = 'YES', defaultValue: string | null = null): object => ({
      column_name: name,
      data_type: type,
      is_nullable: nullable,
      column_default: defaultValue,
    });
    expect(rows).toEqual([
      column('stream_name', 'text', 'NO'),
      column('instance_id', 'text'),
      column('last_seen_token', 'text'),
      column('last_seen_timestamp', 'timestamp with time zone'),
      column('last_processed_token', 'text'),
      column('last_processed_timestamp', 'timestamp with time zone'),
      column('last_heartbeat_timestamp', 'timestamp with time zone'),
      column('metadata', 'text', 'NO', "'{}'::text"),
      column('version', 'numeric'),
    ]);
    const { rows: key } = await database().query<{ attname: string }>(
      `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
       WHERE i.indrelid = $1::regclass AND i.indisprimary`,
      [table],
    );
    expect(key).toEqual([{ attname: 'stream_name' }]);
  });

  it('uses the default table name, and a schema when given', async () => {
    const store = new PostgresDualAnchorCheckpointStore(database());
    await store.createTable();
    await store.saveHeartbeat('orders', at);
    expect(await rowCount(database(), 'checkpoint_fencing_dual_anchor_checkpoints')).toBe(1);
    await database().query('CREATE SCHEMA IF NOT EXISTS anchoring');
    const inSchema = new PostgresDualAnchorCheckpointStore(database(), { schema: 'anchoring', table: 'anchors' });
    await inSchema.createTable();
    await inSchema.saveSeen('orders', { position: 1 }, at, undefined, notOlderThan(1));
    const { rows } = await database().query(
      'SELECT stream_name, last_seen_token, version::text FROM anchoring.anchors',
    );
    expect(rows).toEqual([{ stream_name: 'orders', last_seen_token: '{"position":1}', version: '1' }]);
  });

  it('takes a table name of the full 63 bytes', async () => {
    const table = `a${String(process.pid).padEnd(62, 'y')}`;
    const store = new PostgresDualAnchorCheckpointStore(database(), { table });
    await store.createTable();
    await store.saveProcessed('orders', 'p', at, at, notOlderThan(1));
    const { rows } = await database().query<{ conname: string }>(
      "SELECT conname FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'c'",
      [`"${table}"`],
    );
    expect(rows.map(({ conname }) => conname)).toEqual([expect.stringMatching(/^a\d+y*_version_check$/u)]);
  });

  it('refuses a version that is not a non-negative integer written by hand', async () => {
    const { store, table } = await freshTable('anchors_checks');
    await store.saveHeartbeat('orders', at, notOlderThan(3));
    for (const bad of ['-1', '1.5', '2.0', 'NaN', 'Infinity']) {
      await expect(database().query(`UPDATE "${table}" SET version = $1::numeric`, [bad])).rejects.toMatchObject({
        code: '23514',
      });
    }
    await expect(store.saveHeartbeat('orders', later, notOlderThan(2))).rejects.toMatchObject({ storedVersion: 3n });
  });

  it('creates nothing on a first write: a missing table is an error that says what to run', async () => {
    const table = freshTableName('anchors_missing');
    const store = new PostgresDualAnchorCheckpointStore(database(), { table });
    const error = await store.saveSeen('orders', 'p', at).catch((reason: unknown) => reason);
    expect(String(error)).toContain('run `await store.createTable()` or apply `createTableSql()`');
    expect(String(error)).toContain('PostgresDualAnchorCheckpointStore.createTableSql({ table, schema })');
    expect((error as Error).cause).toMatchObject({ code: '42P01' });
    await expect(store.findByStreamName('orders')).rejects.toThrow(/createTable\(\)/u);
    await expect(store.resetAfterHistoryLost('orders', null, null, at, notOlderThan(1))).rejects.toThrow(
      /createTable\(\)/u,
    );
    const { rows } = await database().query('SELECT to_regclass($1) AS found', [table]);
    expect(rows).toEqual([{ found: null }]);
  });

  it('says so when the table lacks a column, as one written after the reference does', async () => {
    const table = freshTableName('anchors_reference');
    await database().query(
      `CREATE TABLE "${table}" (stream_name text PRIMARY KEY, last_seen_token text, last_seen_ts timestamptz,
       last_processed_token text, last_processed_ts timestamptz, last_heartbeat_ts timestamptz)`,
    );
    const store = new PostgresDualAnchorCheckpointStore(database(), { table });
    await expect(store.saveProcessed('orders', 'p', at, at)).rejects.toThrow(
      /exists but lacks a column PostgresDualAnchorCheckpointStore needs/u,
    );
  });
});

describe('PostgresDualAnchorCheckpointStore values', () => {
  it('keeps NUL characters inside tokens and metadata as the JSON escape \\u0000: the text column never holds a raw NUL', async () => {
    const { store, table } = await freshTable('anchors_nul');
    const token = { 'key\0': 'a\0b', list: ['\0', '\u0001\u001f'] };
    await store.saveSeen('orders', token, at);
    await store.saveProcessed('orders', '\0', at, later, notOlderThan(1));
    await store.resetAfterHistoryLost('other', 'x\0', null, at);
    await store.save({ ...emptyRecord('meta'), metadata: { note: 'tab\there, nul\0here' } });
    expect(await store.findByStreamName('orders')).toMatchObject({ lastSeenToken: token, lastProcessedToken: '\0' });
    expect(await store.findByStreamName('meta')).toMatchObject({ metadata: { note: 'tab\there, nul\0here' } });
    const { rows } = await database().query(
      `SELECT last_seen_token, last_processed_token FROM "${table}" WHERE stream_name = 'orders'`,
    );
    expect(rows).toEqual([
      {
        last_seen_token: '{"key\\u0000":"a\\u0000b","list":["\\u0000","\\u0001\\u001f"]}',
        last_processed_token: '"\\u0000"',
      },
    ]);
    // The guard compares those same texts: a reset expecting the NUL token clears it.
    await store.resetAfterHistoryLost('orders', 'fresh', '\0', later);
    expect(await store.findByStreamName('orders')).toMatchObject({
      lastProcessedToken: null,
      lastProcessedTimestamp: null,
    });
  });

  it('refuses a NUL in a stream name or instance id with a TypeError before anything is sent', async () => {
    const client = new RecordingPostgresClient(database());
    const { store, table } = await freshTable('anchors_unstorable', client);
    await store.save({ ...emptyRecord('victim'), lastSeenToken: 'kept' }, notOlderThan(3));
    const sent = client.statements.length;
    const calls: readonly (readonly [string, () => Promise<unknown>])[] = [
      ['findByStreamName', () => store.findByStreamName('victim\0')],
      ['delete', () => store.delete('victim\0')],
      ['save', () => store.save(emptyRecord('victim\0'))],
      ['save with an instance id', () => store.save({ ...emptyRecord('victim'), instanceId: 'node\0' })],
      ['saveSeen', () => store.saveSeen('victim\0', 'p', at, undefined, notOlderThan(9))],
      ['saveProcessed', () => store.saveProcessed('victim\0', 'p', at, later)],
      ['saveHeartbeat', () => store.saveHeartbeat('\0', at, ifAbsent())],
      ['resetAfterHistoryLost', () => store.resetAfterHistoryLost('victim\0', null, 'kept', at)],
    ];
    for (const [label, call] of calls) {
      await expect(call(), label).rejects.toThrow(
        /contains a NUL character \(\\u0000\), which PostgreSQL text cannot store/u,
      );
    }
    expect(client.statements).toHaveLength(sent);
    expect(await rowCount(database(), table)).toBe(1);
    expect(await store.findByStreamName('victim')).toEqual({ ...emptyRecord('victim'), lastSeenToken: 'kept' });
  });

  it('keeps timestamps exact to the millisecond whatever the session time zone, date style and type parsers', async () => {
    const types = new pg.TypeOverrides();
    types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, () => 'parsed by the application');
    const odd = testPool(postgres, {
      max: 2,
      types,
      // A zone whose year-1 offset is local mean time with seconds (-03:30:52), and a day-first date style.
      options: '-c TimeZone=America/St_Johns -c DateStyle=SQL,DMY',
    });
    try {
      const { store, table } = await freshTable('anchors_zones');
      const oddStore = new PostgresDualAnchorCheckpointStore(odd, { table });
      const dates = [
        new Date('0001-01-01T00:00:00.000Z'),
        new Date('1883-11-18T16:59:59.999Z'),
        new Date('1969-12-31T23:59:59.999Z'),
        new Date('2024-03-10T05:30:00.001Z'),
        new Date('9999-12-31T23:59:59.999Z'),
      ];
      for (const [index, date] of dates.entries()) {
        await oddStore.saveProcessed(`odd-${index}`, index, date, date);
        await store.saveSeen(`plain-${index}`, index, date, date);
        expect(await store.findByStreamName(`odd-${index}`)).toMatchObject({
          lastProcessedTimestamp: date,
          lastHeartbeatTimestamp: date,
        });
        expect(await oddStore.findByStreamName(`plain-${index}`)).toMatchObject({
          lastSeenTimestamp: date,
          lastHeartbeatTimestamp: date,
        });
      }
      // SQL readers see the same instants: the columns hold them, not a text the store alone understands.
      const { rows } = await database().query<{ matches: boolean }>(
        `SELECT last_processed_timestamp = $1::timestamptz AS matches FROM "${table}" WHERE stream_name = 'odd-0'`,
        ['0001-01-01 00:00:00+00'],
      );
      expect(rows).toEqual([{ matches: true }]);
    } finally {
      await odd.end();
    }
  });

  it('compares versions beyond 2**64 exactly, also when the application parses numeric as a JavaScript number', async () => {
    const types = new pg.TypeOverrides();
    types.setTypeParser(pg.types.builtins.NUMERIC, parseFloat);
    const lossy = testPool(postgres, { max: 2, types });
    try {
      const store = new PostgresDualAnchorCheckpointStore(lossy, { table: freshTableName('anchors_big') });
      await store.createTable();
      await store.saveSeen('orders', 'a', at, undefined, notOlderThan(2n ** 64n + 1n));
      await expect(store.saveProcessed('orders', 'b', at, undefined, notOlderThan(2n ** 64n))).rejects.toMatchObject({
        storedVersion: 2n ** 64n + 1n,
      });
      await store.saveProcessed('orders', 'c', at, undefined, notOlderThan(2n ** 64n + 1n));
      await store.resetAfterHistoryLost('orders', null, 'c', at, notOlderThan(2n ** 100n));
      await expect(store.saveHeartbeat('orders', at, notOlderThan(2n ** 100n - 1n))).rejects.toMatchObject({
        storedVersion: 2n ** 100n,
      });
      expect(await store.findByStreamName('orders')).toEqual(emptyRecord('orders'));
    } finally {
      await lossy.end();
    }
  });

  it('a row changed by hand into something the store never writes is an error naming the column', async () => {
    const { store, table } = await freshTable('anchors_corrupt');
    await store.saveProcessed('orders', { position: 1 }, at, later);
    await database().query(`UPDATE "${table}" SET last_processed_token = 'not json' WHERE stream_name = 'orders'`);
    await expect(store.findByStreamName('orders')).rejects.toThrow(
      new RegExp(
        `^The dual-anchor record of stream "orders" in ${table} holds "not json" in column last_processed_token`,
        'u',
      ),
    );
    await database().query(
      `UPDATE "${table}" SET last_processed_token = '1', last_heartbeat_timestamp = 'infinity' WHERE stream_name = 'orders'`,
    );
    await expect(store.findByStreamName('orders')).rejects.toThrow(
      /holds Infinity \(epoch milliseconds\) in column last_heartbeat_timestamp/u,
    );
  });
});

describe('PostgresDualAnchorCheckpointStore statements sent', () => {
  it('each operation is one statement, on a primary without standbys too (a conditional write checks for them in its own statement); the reset carries its guard; nothing is read before a write', async () => {
    const client = new RecordingPostgresClient(database());
    const { store } = await freshTable('anchors_one_statement', client);
    const operations: readonly (readonly [string, () => Promise<unknown>, RegExp])[] = [
      [
        'saveSeen',
        () => store.saveSeen('orders', 's', at, undefined, any()),
        /^INSERT .* VALUES .* ON CONFLICT \(stream_name\) DO UPDATE SET last_seen_token/u,
      ],
      [
        'saveProcessed with a heartbeat, fenced',
        () => store.saveProcessed('orders', 'p', at, later, notOlderThan(2)),
        /^INSERT .* WHERE set_config\('synchronous_commit', CASE WHEN EXISTS .*last_heartbeat_timestamp = EXCLUDED\.last_heartbeat_timestamp, version = EXCLUDED\.version WHERE stored\.version IS NULL OR stored\.version <= EXCLUDED\.version$/u,
      ],
      [
        'saveHeartbeat',
        () => store.saveHeartbeat('orders', later),
        /^INSERT .* VALUES .* DO UPDATE SET last_heartbeat_timestamp = EXCLUDED/u,
      ],
      [
        'save',
        () => store.save(emptyRecord('other'), ifAbsent()),
        /^WITH attempt AS \(INSERT .* WHERE set_config\('synchronous_commit', CASE WHEN EXISTS .* DO NOTHING RETURNING 1\)/u,
      ],
      [
        'resetAfterHistoryLost',
        () => store.resetAfterHistoryLost('orders', 'fresh', 'p', later),
        /last_processed_token = CASE WHEN stored\.last_processed_token IS NOT DISTINCT FROM \$5::text THEN NULL/u,
      ],
      [
        'resetAfterHistoryLost, fenced',
        () => store.resetAfterHistoryLost('orders', null, null, later, notOlderThan(3)),
        /IS NOT DISTINCT FROM \$6::text THEN NULL .* WHERE stored\.version IS NULL OR stored\.version <= EXCLUDED\.version$/u,
      ],
      ['findByStreamName', () => store.findByStreamName('orders'), /^SELECT /u],
      ['delete', () => store.delete('orders'), /^DELETE FROM /u],
    ];
    for (const [label, operation, statement] of operations) {
      const before = client.statements.length;
      await operation();
      expect(client.statements.slice(before), label).toEqual([expect.stringMatching(statement)]);
    }
  });
});

describe('PostgresDualAnchorCheckpointStore clients and transactions', () => {
  it('works over a pg.Client and a PoolClient as well as a Pool', async () => {
    const { store, table } = await freshTable('anchors_clients');
    const client = new pg.Client({ connectionString: postgres.connectionString });
    await client.connect();
    const checkedOut = await database().connect();
    try {
      await new PostgresDualAnchorCheckpointStore(client, { table }).saveSeen(
        'orders',
        's',
        at,
        later,
        notOlderThan(1),
      );
      await new PostgresDualAnchorCheckpointStore(checkedOut, { table }).saveProcessed(
        'orders',
        'p',
        at,
        undefined,
        notOlderThan(2),
      );
      expect(await store.findByStreamName('orders')).toMatchObject({ lastSeenToken: 's', lastProcessedToken: 'p' });
    } finally {
      checkedOut.release();
      await client.end();
    }
  });

  it('refuses a pool for withinTransaction', () => {
    const store = new PostgresDualAnchorCheckpointStore(database());
    expect(() => store.withinTransaction(database())).toThrow(
      /needs the client your transaction runs on .* not the pool/u,
    );
  });

  it('refuses a write once the client of withinTransaction is released to the pool, and writes nothing', async () => {
    const { store, table } = await freshTable('anchors_released');
    const client = await database().connect();
    await client.query('BEGIN');
    const bound = store.withinTransaction(client);
    await client.query('COMMIT');
    client.release();
    await expect(bound.saveProcessed('orders', { position: 1 }, at, at, notOlderThan(1))).rejects.toThrow(
      /^PostgresDualAnchorCheckpointStore\.withinTransaction\(client\) .* its client was released to the pool .* Bind the store to a client inside an open transaction/u,
    );
    expect(await rowCount(database(), table)).toBe(0);
  });

  it('a zombie with an older token loses its projection rows with its refused anchor; the new holder keeps both', async () => {
    const store = await freshStore('anchors_zombie');
    const projection = freshTableName('anchor_projection');
    await database().query(`CREATE TABLE "${projection}" (order_id text PRIMARY KEY, projected_by text NOT NULL)`);
    const project = async (client: pg.PoolClient, by: string, orders: readonly number[]): Promise<void> => {
      for (const order of orders) {
        await client.query(
          `INSERT INTO "${projection}" VALUES ($1, $2) ON CONFLICT (order_id) DO UPDATE SET projected_by = EXCLUDED.projected_by`,
          [`order-${order}`, by],
        );
      }
    };
    await store.saveProcessed('orders', { position: 100 }, at, at, notOlderThan(7));
    const zombie = await database().connect();
    const holder = await database().connect();
    try {
      await zombie.query('BEGIN');
      await project(zombie, 'zombie', [101, 102]);
      await holder.query('BEGIN');
      await project(holder, 'new-holder', [103, 104]);
      await store.withinTransaction(holder).saveProcessed('orders', { position: 104 }, later, later, notOlderThan(8));
      await holder.query('COMMIT');
      const refusal = await store
        .withinTransaction(zombie)
        .saveProcessed('orders', { position: 102 }, later, later, notOlderThan(7))
        .catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
      expect(refusal).toMatchObject({ subscriptionId: 'orders', storedVersion: 8n });
      await zombie.query('ROLLBACK');
    } finally {
      zombie.release();
      holder.release();
    }
    const { rows } = await database().query(`SELECT order_id, projected_by FROM "${projection}" ORDER BY order_id`);
    expect(rows).toEqual([
      { order_id: 'order-103', projected_by: 'new-holder' },
      { order_id: 'order-104', projected_by: 'new-holder' },
    ]);
    expect(await store.findByStreamName('orders')).toMatchObject({ lastProcessedToken: { position: 104 } });
  });

  it('an anchor written in a transaction that rolls back was never written', async () => {
    const store = await freshStore('anchors_rollback');
    const client = await database().connect();
    try {
      await client.query('BEGIN');
      await store.withinTransaction(client).saveSeen('orders', 's', at, at, notOlderThan(1));
      expect(await store.withinTransaction(client).findByStreamName('orders')).toMatchObject({ lastSeenToken: 's' });
      expect(await store.findByStreamName('orders')).toBeUndefined();
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await store.findByStreamName('orders')).toBeUndefined();
    await store.saveSeen('orders', 'after', at, undefined, ifAbsent());
  });

  it('a writer of the other anchor waits for an open transaction on the row, and both anchors survive', async () => {
    const store = await freshStore('anchors_row_lock');
    await store.saveSeen('orders', 's-1', at);
    const open = await database().connect();
    try {
      await open.query('BEGIN');
      await store.withinTransaction(open).saveProcessed('orders', 'p-1', at, later, notOlderThan(5));
      const other = store.saveSeen('orders', 's-2', later, undefined, notOlderThan(5));
      const stale = store.saveHeartbeat('orders', at, notOlderThan(4)).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await open.query('COMMIT');
      await other;
      expect(await stale).toMatchObject({ storedVersion: 5n });
    } finally {
      open.release();
    }
    expect(await store.findByStreamName('orders')).toEqual({
      ...emptyRecord('orders'),
      lastSeenToken: 's-2',
      lastSeenTimestamp: later,
      lastProcessedToken: 'p-1',
      lastProcessedTimestamp: at,
      lastHeartbeatTimestamp: later,
    });
  });
});
