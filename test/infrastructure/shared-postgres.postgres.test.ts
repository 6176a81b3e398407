import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { useSharedPostgres, type SharedPostgres } from '../support/postgres/index.js';

// The databases suites get on the run's shared PostgreSQL server: apart from each other while they run, gone after.
const address = inject('sharedPostgresServer');
const clients: pg.Client[] = [];

/** A client on the server's `postgres` database, past the namespaces, to look at what they leave behind. */
async function administrator(): Promise<pg.Client> {
  const client = new pg.Client({ host: address?.host, port: address?.port, user: address?.user, database: 'postgres' });
  clients.push(client);
  await client.connect();
  return client;
}

afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.end().catch(() => undefined)));
});

async function rows(on: pg.Pool | pg.ClientBase, text: string, values: unknown[] = []): Promise<unknown[]> {
  return (await on.query<Record<string, unknown>>(text, values)).rows;
}

describe('useSharedPostgres', () => {
  const first = useSharedPostgres();
  const second = useSharedPostgres();

  it('gives each suite a database of its own on the one shared server, never the postgres database', async () => {
    expect([first.host, first.port]).toEqual([address?.host, address?.port]);
    expect(second.port).toBe(first.port);
    expect(first.database).toMatch(/^suite_[0-9a-f]{12}$/u);
    expect(second.database).not.toBe(first.database);
    expect(first.connectionString).toBe(`postgresql://postgres@127.0.0.1:${first.port}/${first.database}`);
    expect(await rows(first.pool(), 'SELECT current_database() AS name')).toEqual([{ name: first.database }]);
  });

  it('keeps schemas and tables of the same name apart', async () => {
    const write = async (suite: SharedPostgres, value: string): Promise<void> => {
      await suite.pool().query('CREATE SCHEMA fencing');
      await suite.pool().query('CREATE TABLE fencing.checkpoints (value text)');
      await suite.pool().query('INSERT INTO fencing.checkpoints VALUES ($1)', [value]);
    };
    await write(first, 'first');
    await write(second, 'second');
    expect(await rows(first.pool(), 'SELECT value FROM fencing.checkpoints')).toEqual([{ value: 'first' }]);
    expect(await rows(second.pool(), 'SELECT value FROM fencing.checkpoints')).toEqual([{ value: 'second' }]);
  });

  it('keeps session advisory locks apart: the same key is free in another suite’s database', async () => {
    const holder = await first.pool().connect();
    const other = await second.pool().connect();
    const take = (client: pg.PoolClient): Promise<unknown[]> =>
      rows(client, 'SELECT pg_try_advisory_lock(4242) AS taken');
    try {
      expect(await take(holder)).toEqual([{ taken: true }]);
      expect(await take(other)).toEqual([{ taken: true }]);
    } finally {
      await holder.query('SELECT pg_advisory_unlock_all()');
      await other.query('SELECT pg_advisory_unlock_all()');
      holder.release();
      other.release();
    }
  });
});

describe('after a suite with a shared database', () => {
  let database = '';
  describe('the suite', () => {
    const namespace = useSharedPostgres();
    it('writes, and leaves a connection open', async () => {
      database = namespace.database;
      await namespace.pool().query('CREATE TABLE left_behind (value int)');
      const forgotten = new pg.Client({ connectionString: namespace.connectionString });
      // Dropping the database terminates it; the error event that follows is expected.
      forgotten.on('error', () => undefined);
      clients.push(forgotten);
      await forgotten.connect();
    });
  });

  it('its database is dropped, even with a connection the suite left open, and nothing connects to it', async () => {
    expect(database).toMatch(/^suite_/u);
    const admin = await administrator();
    expect(await rows(admin, 'SELECT datname FROM pg_database WHERE datname = $1', [database])).toEqual([]);
    expect(await rows(admin, 'SELECT pid FROM pg_stat_activity WHERE datname = $1', [database])).toEqual([]);
  });
});
