import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { useSharedRedis, useSharedRedisCluster } from '../support/redis/index.js';

// The namespaces suites get on the run's shared servers: apart from each other while they run, empty after them.
const address = inject('sharedRedisServer');
const raw: Redis[] = [];

/** A client that bypasses the namespaces, to look at what they leave behind. */
function rawClient(db: number, port = address?.port ?? 0): Redis {
  const client = new Redis({ host: '127.0.0.1', port, db });
  raw.push(client);
  return client;
}

afterAll(() => {
  for (const client of raw.splice(0)) {
    client.disconnect();
  }
});

describe('useSharedRedis', () => {
  const first = useSharedRedis();
  const second = useSharedRedis();

  it('gives each namespace its own database on the one shared server, never database 0', () => {
    expect([first.host, first.port]).toEqual([address?.host, address?.port]);
    expect(second.port).toBe(first.port);
    expect(first.database).toBeGreaterThan(0);
    expect(second.database).not.toBe(first.database);
  });

  it('connects clients to the namespace database, and flush() empties that database alone', async () => {
    await first.connect().set('shared-key', 'first');
    await second.connect().set('shared-key', 'second');
    expect(await rawClient(first.database).get('shared-key')).toBe('first');
    await first.flush();
    expect(await rawClient(first.database).dbsize()).toBe(0);
    expect(await rawClient(second.database).get('shared-key')).toBe('second');
  });

  it('ignores a db passed to connect(), so a suite cannot step into another database', async () => {
    const client = first.connect({ db: second.database });
    expect(await client.client('INFO')).toMatch(new RegExp(`\\bdb=${first.database}\\b`));
  });
});

describe('after a suite with a shared namespace', () => {
  let database = -1;
  describe('the suite', () => {
    const namespace = useSharedRedis();
    it('writes', async () => {
      database = namespace.database;
      await namespace.connect().set('left-behind', '1');
    });
  });

  it('its database is empty', async () => {
    expect(database).toBeGreaterThan(0);
    expect(await rawClient(database).dbsize()).toBe(0);
  });
});

describe('useSharedRedisCluster', () => {
  const first = useSharedRedisCluster();
  const second = useSharedRedisCluster();
  const outsider = `outside-${first.keyPrefix}`;

  afterAll(async () => {
    await Promise.all(
      first.nodes.map(({ port }) =>
        rawClient(0, port)
          .del(outsider)
          .catch(() => 0),
      ),
    );
  });

  it('gives each namespace its own brace-free key prefix, and fresh prefixes under it', () => {
    expect(first.keyPrefix).toMatch(/^[^{}]+:$/);
    expect(second.keyPrefix).not.toBe(first.keyPrefix);
    const fresh = [first.freshPrefix(), first.freshPrefix()];
    expect(fresh[0]).not.toBe(fresh[1]);
    expect(fresh.every((prefix) => prefix.startsWith(first.keyPrefix))).toBe(true);
    expect(first.nodes).toHaveLength(3);
  });

  it('flush() deletes every key under its prefix, on every master, and nothing else', async () => {
    const client = first.connect();
    const keys = Array.from({ length: 30 }, (_, index) => `${first.freshPrefix()}key-${index}`);
    await Promise.all(keys.map((key) => client.set(key, 'x')));
    await second.connect().set(`${second.keyPrefix}kept`, 'y');
    await client.set(outsider, 'z');
    const owners = await Promise.all(
      first.nodes.map(async ({ port }) => (await rawClient(0, port).keys(`${first.keyPrefix}*`)).length),
    );
    expect(owners.filter((count) => count > 0).length).toBeGreaterThan(1);
    await first.flush();
    expect(await Promise.all(keys.map((key) => client.exists(key)))).toEqual(keys.map(() => 0));
    expect(await client.get(`${second.keyPrefix}kept`)).toBe('y');
    expect(await client.get(outsider)).toBe('z');
  });
});
