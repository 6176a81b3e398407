import { describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, type PostgresClient, type PostgresQueryResult } from '../../../runtime/index.js';
import {
  DualAnchorWritePlan,
  PostgresDualAnchorCheckpointStore,
  type DualAnchorFieldWrite,
} from '../../../runtime/dual-anchor-entry.js';
import { columnValues, storedFieldsOfRow } from '../../../runtime/postgres/postgres-dual-anchor-row.js';
import { dualAnchorStatements } from '../../../runtime/postgres/postgres-dual-anchor-statements.js';
import { qualifiedTableName } from '../../../runtime/postgres/postgres-identifiers.js';

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;
const statements = dualAnchorStatements(qualifiedTableName('test', 'anchors', undefined), 'anchors');
const at = new Date('2024-05-01T10:00:00.123Z');
const heartbeat = new Date('0001-01-01T00:00:00.000Z');

function statementOf(write: DualAnchorFieldWrite): { text: string; values: unknown[] } {
  const { columns, values } = columnValues(write.streamName, write.fields);
  if (write.condition.kind === 'notOlderThan') {
    values.push(String(write.condition.version));
  }
  return { text: statements.write(columns, write.condition.kind).unchecked, values };
}

describe('PostgresDualAnchorCheckpointStore statements', () => {
  it('saveProcessed with a heartbeat, unconditional: one upsert of its three columns, the version left out', () => {
    expect(statementOf(DualAnchorWritePlan.saveProcessed('orders', { b: 1, a: [2] }, at, heartbeat, any()))).toEqual({
      text:
        'INSERT INTO "anchors" AS stored (stream_name, last_processed_token, last_processed_timestamp, last_heartbeat_timestamp) ' +
        'VALUES ($1, $2, $3::timestamptz, $4::timestamptz) ON CONFLICT (stream_name) DO UPDATE SET ' +
        'last_processed_token = EXCLUDED.last_processed_token, last_processed_timestamp = EXCLUDED.last_processed_timestamp, ' +
        'last_heartbeat_timestamp = EXCLUDED.last_heartbeat_timestamp',
      values: ['orders', '{"a":[2],"b":1}', '2024-05-01T10:00:00.123Z', '0001-01-01T00:00:00.000Z'],
    });
  });

  it('saveSeen under notOlderThan(v): the row updated only when no newer version is stored, no row returned', () => {
    expect(statementOf(DualAnchorWritePlan.saveSeen('orders', 'p', at, undefined, notOlderThan(2n ** 64n)))).toEqual({
      text:
        'INSERT INTO "anchors" AS stored (stream_name, last_seen_token, last_seen_timestamp, version) ' +
        'VALUES ($1, $2, $3::timestamptz, $4::numeric) ON CONFLICT (stream_name) DO UPDATE SET ' +
        'last_seen_token = EXCLUDED.last_seen_token, last_seen_timestamp = EXCLUDED.last_seen_timestamp, ' +
        'version = EXCLUDED.version WHERE stored.version IS NULL OR stored.version <= EXCLUDED.version',
      values: ['orders', '"p"', '2024-05-01T10:00:00.123Z', '18446744073709551616'],
    });
  });

  it('saveHeartbeat under ifAbsent(): an insert that does nothing on a conflict, and the answer in the same statement', () => {
    expect(statementOf(DualAnchorWritePlan.saveHeartbeat('orders', at, ifAbsent()))).toEqual({
      text:
        'WITH attempt AS (INSERT INTO "anchors" (stream_name, last_heartbeat_timestamp) VALUES ($1, $2::timestamptz) ' +
        'ON CONFLICT (stream_name) DO NOTHING RETURNING 1) SELECT EXISTS (SELECT FROM attempt) AS accepted, ' +
        '(SELECT version::text FROM "anchors" WHERE stream_name = $1) AS stored_version',
      values: ['orders', '2024-05-01T10:00:00.123Z'],
    });
  });

  it('save writes every column, nulls included', () => {
    const { text, values } = statementOf(
      DualAnchorWritePlan.save(
        {
          streamName: 'orders',
          instanceId: null,
          lastSeenToken: null,
          lastSeenTimestamp: null,
          lastProcessedToken: 1,
          lastProcessedTimestamp: at,
          lastHeartbeatTimestamp: null,
          metadata: { z: 1, a: 2 },
        },
        any(),
      ),
    );
    expect(text).toMatch(
      /^INSERT INTO "anchors" AS stored \(stream_name, instance_id, last_seen_token, last_seen_timestamp, last_processed_token, last_processed_timestamp, last_heartbeat_timestamp, metadata\) VALUES \(\$1, \$2, \$3, \$4::timestamptz, \$5, \$6::timestamptz, \$7::timestamptz, \$8\) ON CONFLICT/u,
    );
    expect(values).toEqual(['orders', null, null, null, '1', '2024-05-01T10:00:00.123Z', null, '{"a":2,"z":1}']);
  });

  it('resetAfterHistoryLost: the guard is inside the statement, against the locked row', () => {
    expect(statements.reset('any').unchecked).toBe(
      'INSERT INTO "anchors" AS stored (stream_name, last_seen_token, last_seen_timestamp, last_heartbeat_timestamp) ' +
        'VALUES ($1, $2, $3::timestamptz, $4::timestamptz) ON CONFLICT (stream_name) DO UPDATE SET ' +
        'last_seen_token = EXCLUDED.last_seen_token, last_seen_timestamp = EXCLUDED.last_seen_timestamp, ' +
        'last_heartbeat_timestamp = EXCLUDED.last_heartbeat_timestamp, ' +
        'last_processed_token = CASE WHEN stored.last_processed_token IS NOT DISTINCT FROM $5::text THEN NULL ELSE stored.last_processed_token END, ' +
        'last_processed_timestamp = CASE WHEN stored.last_processed_token IS NOT DISTINCT FROM $5::text THEN NULL ELSE stored.last_processed_timestamp END',
    );
    expect(statements.reset('notOlderThan').unchecked).toBe(
      'INSERT INTO "anchors" AS stored (stream_name, last_seen_token, last_seen_timestamp, last_heartbeat_timestamp, version) ' +
        'VALUES ($1, $2, $3::timestamptz, $4::timestamptz, $5::numeric) ON CONFLICT (stream_name) DO UPDATE SET ' +
        'last_seen_token = EXCLUDED.last_seen_token, last_seen_timestamp = EXCLUDED.last_seen_timestamp, ' +
        'last_heartbeat_timestamp = EXCLUDED.last_heartbeat_timestamp, ' +
        'last_processed_token = CASE WHEN stored.last_processed_token IS NOT DISTINCT FROM $6::text THEN NULL ELSE stored.last_processed_token END, ' +
        'last_processed_timestamp = CASE WHEN stored.last_processed_token IS NOT DISTINCT FROM $6::text THEN NULL ELSE stored.last_processed_timestamp END, ' +
        'version = EXCLUDED.version WHERE stored.version IS NULL OR stored.version <= EXCLUDED.version',
    );
  });

  it('reads timestamps back as epoch milliseconds, whatever the session time zone and date style', () => {
    expect(statements.find).toBe(
      'SELECT instance_id, last_seen_token, round(extract(epoch FROM last_seen_timestamp) * 1000)::text AS last_seen_timestamp, ' +
        'last_processed_token, round(extract(epoch FROM last_processed_timestamp) * 1000)::text AS last_processed_timestamp, ' +
        'round(extract(epoch FROM last_heartbeat_timestamp) * 1000)::text AS last_heartbeat_timestamp, metadata ' +
        'FROM "anchors" WHERE stream_name = $1',
    );
  });

  it('names the columns in the order the plan lists its fields, so each value meets its own column', () => {
    const { columns, values } = columnValues('orders', {
      lastHeartbeatTimestamp: -1,
      lastProcessedToken: '"p"',
      lastProcessedTimestamp: 1,
    });
    expect(statements.write(columns, 'any').unchecked).toBe(
      'INSERT INTO "anchors" AS stored (stream_name, last_heartbeat_timestamp, last_processed_token, last_processed_timestamp) ' +
        'VALUES ($1, $2::timestamptz, $3, $4::timestamptz) ON CONFLICT (stream_name) DO UPDATE SET ' +
        'last_heartbeat_timestamp = EXCLUDED.last_heartbeat_timestamp, last_processed_token = EXCLUDED.last_processed_token, ' +
        'last_processed_timestamp = EXCLUDED.last_processed_timestamp',
    );
    expect(values).toEqual(['orders', '1969-12-31T23:59:59.999Z', '"p"', '1970-01-01T00:00:00.001Z']);
  });

  it('builds each statement once per table and column set', () => {
    const { columns } = columnValues('orders', DualAnchorWritePlan.saveHeartbeat('orders', at, any()).fields);
    expect(statements.write(columns, 'any')).toBe(statements.write(columns, 'any'));
    expect(statements.write(columns, 'any')).not.toBe(statements.write(columns, 'ifAbsent'));
  });

  it('creates the table with a schema, quoted, and the version check', () => {
    expect(PostgresDualAnchorCheckpointStore.createTableSql()).toMatch(
      /^CREATE TABLE IF NOT EXISTS "checkpoint_fencing_dual_anchor_checkpoints" \(\n {2}stream_name text PRIMARY KEY,/u,
    );
    const sql = PostgresDualAnchorCheckpointStore.createTableSql({ schema: 'app', table: 'anchors' });
    expect(sql).toMatch(/^CREATE TABLE IF NOT EXISTS "app"\."anchors" \(/u);
    expect(sql).toContain(`CONSTRAINT "anchors_version_check"\n    CHECK (version::text ~ '^[0-9]+$')`);
  });

  it('refuses bad names and clients at construction', () => {
    for (const table of ['', 'anchors; DROP TABLE x', 'a"b', '1abc', 'x'.repeat(64), 'séance']) {
      expect(
        () => new PostgresDualAnchorCheckpointStore({ query: () => Promise.reject(new Error()) }, { table }),
      ).toThrow(TypeError);
      expect(() => PostgresDualAnchorCheckpointStore.createTableSql({ table })).toThrow(
        /PostgresDualAnchorCheckpointStore options\.table must be a plain PostgreSQL identifier/u,
      );
    }
    expect(() => PostgresDualAnchorCheckpointStore.createTableSql({ schema: 'public.x' })).toThrow(/schema/u);
    expect(() => new PostgresDualAnchorCheckpointStore({} as never)).toThrow(
      /PostgresDualAnchorCheckpointStore needs a node-postgres client with query\(text, values\)/u,
    );
  });
});

/** A client that answers every statement with `answer` and keeps what it was sent. */
function sentBy(answer: () => Promise<PostgresQueryResult>): {
  client: PostgresClient;
  sent: { text: string; values: readonly unknown[] }[];
} {
  const sent: { text: string; values: readonly unknown[] }[] = [];
  return {
    sent,
    client: {
      query: (text, values) => {
        sent.push({ text, values });
        return answer();
      },
    },
  };
}

describe('PostgresDualAnchorCheckpointStore values sent', () => {
  const written = (): Promise<PostgresQueryResult> => Promise.resolve({ rows: [], rowCount: 1 });

  it('saveProcessed and saveSeen send the canonical token and each timestamp as ISO 8601 UTC text, to the millisecond', async () => {
    const { client, sent } = sentBy(written);
    const store = new PostgresDualAnchorCheckpointStore(client, { table: 'anchors' });
    await store.saveProcessed('orders', { b: 1, a: [2] }, new Date(-1), new Date('0001-01-01T00:00:00.000Z'));
    await store.saveSeen('orders', 's', new Date('9999-12-31T23:59:59.999Z'), undefined, notOlderThan(7));
    expect(sent.map(({ values }) => values)).toEqual([
      ['orders', '{"a":[2],"b":1}', '1969-12-31T23:59:59.999Z', '0001-01-01T00:00:00.000Z'],
      ['orders', '"s"', '9999-12-31T23:59:59.999Z', '7'],
    ]);
  });

  it('resetAfterHistoryLost sends the seen pair and the heartbeat, then the version, then the guard, as its statement numbers them', async () => {
    const { client, sent } = sentBy(written);
    const store = new PostgresDualAnchorCheckpointStore(client, { table: 'anchors' });
    await store.resetAfterHistoryLost('orders', { fresh: 1 }, 'dead', at);
    await store.resetAfterHistoryLost('orders', null, null, at, notOlderThan(3));
    expect(sent).toEqual([
      {
        text: statements.reset('any').unchecked,
        values: ['orders', '{"fresh":1}', '2024-05-01T10:00:00.123Z', '2024-05-01T10:00:00.123Z', '"dead"'],
      },
      { text: statements.reset('notOlderThan').guarded, values: ['orders', null, null, null, '3', null] },
    ]);
  });

  it('a driver that throws instead of rejecting: the write rejects, and a missing table is still explained', async () => {
    const missing = Object.assign(new Error('relation "anchors" does not exist'), { code: '42P01' });
    const store = new PostgresDualAnchorCheckpointStore(
      {
        query: () => {
          throw missing;
        },
      },
      { table: 'anchors' },
    );
    for (const write of [
      () => store.saveProcessed('orders', 'p', at, heartbeat),
      () => store.saveSeen('orders', 's', at, undefined, notOlderThan(1)),
      () => store.saveHeartbeat('orders', at),
    ]) {
      const pending = write();
      await expect(pending).rejects.toThrow(
        /^Table anchors does not exist \(PostgreSQL 42P01: .*run `await store\.createTable\(\)`/u,
      );
      await expect(pending).rejects.toMatchObject({ cause: missing });
    }
  });

  it('bad input to an anchor write is a rejection, never a throw from the call itself', async () => {
    const { client, sent } = sentBy(written);
    const store = new PostgresDualAnchorCheckpointStore(client, { table: 'anchors' });
    const calls = [
      () => store.saveProcessed('orders', 'p', 'now' as unknown as Date),
      () => store.saveSeen('orders', null as unknown as string, at),
      () => store.saveProcessed('a\u0000b', 'p', at),
    ];
    for (const call of calls) {
      let pending: Promise<void> | undefined;
      expect(() => (pending = call())).not.toThrow();
      await expect(pending).rejects.toThrow(TypeError);
    }
    expect(sent).toEqual([]);
  });
});

describe('PostgresDualAnchorCheckpointStore rows read back', () => {
  const row = {
    instance_id: null,
    last_seen_token: '{"a":1}',
    last_seen_timestamp: '-62135596800000',
    last_processed_token: null,
    last_processed_timestamp: '253402300799999',
    last_heartbeat_timestamp: null,
    metadata: '{}',
  };

  it('turns a row into stored fields', () => {
    expect(storedFieldsOfRow(row, 'orders', 'anchors')).toEqual({
      instanceId: null,
      lastSeenToken: '{"a":1}',
      lastSeenTimestamp: -62_135_596_800_000,
      lastProcessedToken: null,
      lastProcessedTimestamp: 253_402_300_799_999,
      lastHeartbeatTimestamp: null,
      metadata: '{}',
    });
  });

  for (const [column, value, message] of [
    [
      'last_seen_token',
      '{"a":',
      /holds "\{\\"a\\":" in column last_seen_token, not the text of a JSON value, or NULL/u,
    ],
    [
      'last_seen_timestamp',
      'Infinity',
      /holds Infinity \(epoch milliseconds\) in column last_seen_timestamp, not a timestamp in years 1 to 9999/u,
    ],
    [
      'last_heartbeat_timestamp',
      '253402300800000',
      /in column last_heartbeat_timestamp, not a timestamp in years 1 to 9999/u,
    ],
    ['metadata', '[]', /holds "\[\]" in column metadata, not the text of a JSON object/u],
    ['metadata', null, /holds NULL in column metadata/u],
    ['instance_id', '', /in column instance_id, not a non-empty instance id, or NULL/u],
    ['last_processed_token', 42, /holds number in column last_processed_token/u],
  ] as const) {
    it(`names the stream, the table, the column and the value when ${column} holds ${JSON.stringify(value)}`, () => {
      const read = (): unknown => storedFieldsOfRow({ ...row, [column]: value }, 'orders', 'app.anchors');
      expect(read).toThrow(/^The dual-anchor record of stream "orders" in app\.anchors holds /u);
      expect(read).toThrow(message);
      expect(read).toThrow(/fix the column with UPDATE or delete the row/u);
    });
  }
});
