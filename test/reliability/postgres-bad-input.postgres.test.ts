import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, PostgresCheckpointStorage, type CheckpointStorage } from '../../runtime/index.js';
import { freshTableName, RecordingPostgresClient, rowCount, postgresForThisFile } from '../support/postgres/index.js';
import { describeBadInput } from './bad-input/describe-bad-input.js';

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;

const postgres = postgresForThisFile();
const database = (): pg.Pool => postgres.pool();
let table = '';

async function freshStorage(
  client: pg.Pool | RecordingPostgresClient = database(),
): Promise<PostgresCheckpointStorage> {
  table = freshTableName('bad_input');
  const storage = new PostgresCheckpointStorage(client, { table });
  await storage.createTable();
  return storage;
}

describeBadInput('PostgresCheckpointStorage on a real PostgreSQL server', PostgresCheckpointStorage.prototype, {
  create: () => freshStorage(),
  // The whole table: covers every row a coerced id could have been written under.
  storedKeys: () => rowCount(database(), table),
});

/** Values PostgreSQL text cannot hold unchanged: refused before anything is sent. */
const unstorable: readonly (readonly [string, string])[] = [
  ['a NUL character', 'orders\0'],
  ['only a NUL character', '\0'],
  ['a lone high surrogate', 'orders-\ud83d'],
  ['a lone low surrogate', '\udc00-orders'],
  ['surrogates in the wrong order', '\udc00\ud83d'],
];

const unstorableCalls: readonly (readonly [string, (storage: CheckpointStorage, value: string) => Promise<unknown>])[] =
  [
    ['read with it as id', (s, value) => s.read(value)],
    ['writeVersion with it as id', (s, value) => s.writeVersion(value)],
    ['delete with it as id', (s, value) => s.delete(value)],
    ['save any() with it as id', (s, value) => s.save(value, 'cp', any())],
    ['save notOlderThan(9) with it as id', (s, value) => s.save(value, 'cp', notOlderThan(9))],
    ['save ifAbsent() with it as id', (s, value) => s.save(value, 'cp', ifAbsent())],
    ['advanceWriteVersion with it as id', (s, value) => s.advanceWriteVersion?.(value, 9n) ?? Promise.resolve()],
    ['save any() with it as checkpoint', (s, value) => s.save('victim', value, any())],
    ['save notOlderThan(9) with it as checkpoint', (s, value) => s.save('victim', value, notOlderThan(9))],
    ['save ifAbsent() with it as checkpoint', (s, value) => s.save('fresh', value, ifAbsent())],
  ];

describe('PostgresCheckpointStorage: text PostgreSQL cannot hold unchanged is refused, nothing sent or written', () => {
  for (const [valueLabel, value] of unstorable) {
    for (const [callLabel, call] of unstorableCalls) {
      it(`${callLabel}: ${valueLabel}`, async () => {
        const client = new RecordingPostgresClient(database());
        const storage = await freshStorage(client);
        await storage.save('victim', 'kept', notOlderThan(3));
        const sent = client.statements.length;
        await expect(call(storage, value)).rejects.toThrow(TypeError);
        expect(client.statements).toHaveLength(sent);
        expect(await rowCount(database(), table)).toBe(1);
        expect(await storage.read('victim')).toBe('kept');
        expect(await storage.writeVersion('victim')).toBe(3n);
      });
    }
  }
});

describe('PostgresCheckpointStorage: advanceWriteVersion with bad arguments', () => {
  for (const [label, id, version] of [
    ['a number id', 42, 1n],
    ['a null id', null, 1n],
    ['a number version', 'victim', 5],
    ['a negative version', 'victim', -1n],
    ['a string version', 'victim', '5'],
    ['no version', 'victim', undefined],
  ] as const) {
    it(`rejects ${label} with a TypeError and writes nothing`, async () => {
      const storage = await freshStorage();
      await storage.save('victim', 'kept', notOlderThan(3));
      await expect(storage.advanceWriteVersion(id as never, version as never)).rejects.toThrow(TypeError);
      expect(await rowCount(database(), table)).toBe(1);
      expect(await storage.writeVersion('victim')).toBe(3n);
    });
  }
});

describe('PostgresCheckpointStorage: unusual but storable text', () => {
  it('keeps ids that differ only after a newline, a CRLF, a tab or in an astral character apart, one row each', async () => {
    const storage = await freshStorage();
    const ids = ['a', 'a\nb', 'a\r\nb', 'a\tb', 'a🧾', 'a🧿', 'A', 'a '];
    for (const [index, id] of ids.entries()) {
      await storage.save(id, `cp-${index}\n🧾`, notOlderThan(index + 10));
    }
    for (const [index, id] of ids.entries()) {
      expect(await storage.read(id), JSON.stringify(id)).toBe(`cp-${index}\n🧾`);
      expect(await storage.writeVersion(id), JSON.stringify(id)).toBe(BigInt(index + 10));
    }
    expect(await rowCount(database(), table)).toBe(ids.length);
  });

  it('fences, reads and deletes a 1 MB checkpoint, leaving no row behind', async () => {
    const storage = await freshStorage();
    const checkpoint = Array.from({ length: 1024 * 1024 }, (_, index) => String.fromCharCode(33 + (index % 90))).join(
      '',
    );
    await storage.save('big', checkpoint, notOlderThan(2));
    await expect(storage.save('big', 'stale', notOlderThan(1))).rejects.toMatchObject({ storedVersion: 2n });
    expect(await storage.read('big')).toBe(checkpoint);
    await storage.delete('big');
    expect(await rowCount(database(), table)).toBe(0);
  });

  it('an id too long for the primary key index fails in the server and writes nothing', async () => {
    const storage = await freshStorage();
    // Random text does not compress below the B-tree limit of about 2.7 kB per index entry.
    const id = Array.from({ length: 8_000 }, () => String.fromCharCode(33 + Math.floor(Math.random() * 90))).join('');
    await expect(storage.save(id, 'cp', notOlderThan(1))).rejects.toMatchObject({ code: '54000' });
    expect(await rowCount(database(), table)).toBe(0);
  });
});
