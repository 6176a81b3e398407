import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { Redis as Redis6 } from 'ioredis6';
import { RedisLeaseStrategy } from '../../../runtime/index.js';
import { redisLeaseKeys } from '../../../runtime/store-layout-entry.js';
import { describeCompetingConsumerStrategyConformance } from '../../../runtime/testing/index.js';
import { eventually } from '../../support/leases/event-log.js';
import { countingCalls } from '../../support/redis/counting-client.js';
import { startRedisServer, type RedisServerProcess } from '../../support/redis/index.js';

let server: RedisServerProcess | undefined;
const clients: Redis[] = [];
let prefixes = 0;

beforeAll(async () => {
  server = await startRedisServer();
});

afterAll(async () => {
  for (const client of clients.splice(0)) {
    client.disconnect();
  }
  await server?.stop();
});

/** A new connection, as each node of a deployment has its own. */
function connect(): Redis {
  if (server === undefined) {
    throw new Error('The redis-server of this suite did not start; see the beforeAll error.');
  }
  const client = new Redis({ host: server.host, port: server.port });
  clients.push(client);
  return client;
}

/** A key prefix no other case uses, so every case starts with no leases and no tokens. */
function freshPrefix(): string {
  prefixes += 1;
  return `lease-test-${prefixes}:`;
}

describeCompetingConsumerStrategyConformance('RedisLeaseStrategy on a real redis-server', () => {
  const keyPrefix = freshPrefix();
  const admin = connect();
  return {
    // Long enough that a reply delayed by a loaded machine still arrives within ¾ of the lease.
    leaseTimeMs: 1_000,
    node: async () => {
      const client = connect();
      // Connect before the case starts, so a register's round trip is not a connection set-up.
      await client.ping();
      return new RedisLeaseStrategy(client, { keyPrefix, leaseTimeMs: 1_000 });
    },
    deleteLease: async (subscriptionId) => {
      await admin.del(redisLeaseKeys(keyPrefix, subscriptionId).lease);
    },
  };
});

describe('RedisLeaseStrategy keys on a real redis-server', () => {
  it('keeps the token counter without a TTL, and gives the lease a server-side PX expiry', async () => {
    const keyPrefix = freshPrefix();
    const admin = connect();
    const strategy = new RedisLeaseStrategy(connect(), { keyPrefix, leaseTimeMs: 5_000 });
    await strategy.register('orders', 'node-a');
    const keys = strategy.leaseKeys('orders');
    expect(keys).toEqual({ lease: `${keyPrefix}{orders}:lease`, token: `${keyPrefix}{orders}:token` });
    expect(await admin.get(keys.token)).toBe('0');
    expect(await admin.pttl(keys.token)).toBe(-1);
    const leaseTtl = await admin.pttl(keys.lease);
    expect(leaseTtl).toBeGreaterThan(0);
    expect(leaseTtl).toBeLessThanOrEqual(5_000);
    expect(await admin.get(keys.lease)).toMatch(/^0 node-a /u);
    await strategy.shutdown();
    expect(await admin.exists(keys.lease)).toBe(0);
    expect(await admin.get(keys.token)).toBe('0');
  });

  it("a stale holder's late release does not free the newer holder's lease", async () => {
    const keyPrefix = freshPrefix();
    const admin = connect();
    const stale = new RedisLeaseStrategy(connect(), { keyPrefix, leaseTimeMs: 5_000 });
    const fresh = new RedisLeaseStrategy(connect(), { keyPrefix, leaseTimeMs: 5_000 });
    await stale.register('orders', 'node-a');
    const keys = stale.leaseKeys('orders');
    await admin.del(keys.lease);
    expect(await fresh.register('orders', 'node-b')).toBe(true);
    expect(fresh.fencingToken('orders')).toBe(1n);
    await stale.release('orders', 'node-a');
    expect(await admin.get(keys.lease)).toMatch(/^1 node-b /u);
    await Promise.all([stale.shutdown(), fresh.shutdown()]);
  });

  it('continues the token sequence across deleted leases, from exact decimal tokens beyond 2**53', async () => {
    const keyPrefix = freshPrefix();
    const admin = connect();
    const strategy = new RedisLeaseStrategy(connect(), { keyPrefix, leaseTimeMs: 5_000 });
    const keys = strategy.leaseKeys('orders');
    await admin.set(keys.token, String(2n ** 53n + 1n));
    await strategy.register('orders', 'node-a');
    expect(strategy.fencingToken('orders')).toBe(2n ** 53n + 2n);
    await admin.del(keys.lease);
    await strategy.release('orders', 'node-a');
    await eventually('the lease comes back', () => strategy.hasLock('orders', 'node-a'));
    expect(strategy.fencingToken('orders')).toBe(2n ** 53n + 3n);
    await strategy.shutdown();
  });

  it('encodes braces and percent signs, so odd ids never share keys or split a lease from its counter', () => {
    expect(redisLeaseKeys('p:', '{tenant}-orders').lease).toBe('p:{%7Btenant%7D-orders}:lease');
    expect(redisLeaseKeys('p:', '%7B').lease).toBe('p:{%257B}:lease');
    expect(() => new RedisLeaseStrategy(connect(), { keyPrefix: 'app{x}:' })).toThrow(/keyPrefix/u);
  });
});

describe('RedisLeaseStrategy while the redis-server is stopped', () => {
  it('stops answering hasLock while no refresh gets through, and hands the lease on with a higher token once Redis is back', async () => {
    if (server === undefined) {
      throw new Error('no server');
    }
    const keyPrefix = freshPrefix();
    const first = new RedisLeaseStrategy(connect(), { keyPrefix, leaseTimeMs: 600, onError: () => undefined });
    const second = new RedisLeaseStrategy(connect(), { keyPrefix, leaseTimeMs: 600, onError: () => undefined });
    expect(await first.register('orders', 'node-a')).toBe(true);
    await second.register('orders', 'node-b');
    server.pause();
    try {
      await eventually('the holder stops answering hasLock', () => !first.hasLock('orders', 'node-a'));
      // Longer than the lease: Redis expires it by its own clock, which keeps running while the process is stopped.
      await new Promise((resolve) => setTimeout(resolve, 900));
    } finally {
      server.resume();
    }
    await eventually(
      'a node holds the lease again',
      () => first.hasLock('orders', 'node-a') || second.hasLock('orders', 'node-b'),
    );
    const token = first.fencingToken('orders') ?? second.fencingToken('orders');
    expect(token).toBe(1n);
    await Promise.all([first.shutdown(), second.shutdown()]);
  });
});

describe('RedisLeaseStrategy over ioredis 6 (RESP3 by default)', () => {
  it('takes a lease, hands it over, and runs waitForReplicas through its pipeline', async () => {
    if (server === undefined) {
      throw new Error('no server');
    }
    const keyPrefix = freshPrefix();
    const v6 = new Redis6({ host: server.host, port: server.port });
    const errors: unknown[] = [];
    try {
      const first = new RedisLeaseStrategy(v6, { keyPrefix, leaseTimeMs: 3_000 });
      const waiting = new RedisLeaseStrategy(v6, {
        keyPrefix,
        leaseTimeMs: 3_000,
        waitForReplicas: { replicas: 1, timeoutMs: 20 },
        onError: (error) => errors.push(error),
      });
      expect(await first.register('orders', 'node-a')).toBe(true);
      expect(first.fencingToken('orders')).toBe(0n);
      await waiting.register('orders', 'node-b');
      await first.unregister('orders', 'node-a');
      await eventually('the waiting node has tried WAIT on the freed lease', () => errors.length > 0);
      expect(String(errors[0])).toMatch(/token 1 reached 0 of the 1 replica waitForReplicas waits for/u);
      await Promise.all([first.shutdown(), waiting.shutdown()]);
    } finally {
      v6.disconnect();
    }
  });
});

// Last: a replica attached here leaves the server with an active replication backlog, which 'auto' heeds.
describe('RedisLeaseStrategy waitForReplicas on a real redis-server', () => {
  it('hands back a token that no replica acknowledged, leaving the lease free for others', async () => {
    const keyPrefix = freshPrefix();
    const errors: unknown[] = [];
    const waiting = new RedisLeaseStrategy(connect(), {
      keyPrefix,
      leaseTimeMs: 3_000,
      waitForReplicas: { replicas: 1, timeoutMs: 50 },
      onError: (error) => errors.push(error),
    });
    const plain = new RedisLeaseStrategy(connect(), { keyPrefix, leaseTimeMs: 3_000 });
    expect(await waiting.register('orders', 'node-a')).toBe(false);
    expect(String(errors[0])).toMatch(/reached 0 of the 1 replica waitForReplicas waits for/u);
    expect(await plain.register('orders', 'node-b')).toBe(true);
    expect(plain.fencingToken('orders')).toBe(1n);
    await Promise.all([waiting.shutdown(), plain.shutdown()]);
  });

  it('grants the lease once a real replica acknowledged the token', async () => {
    if (server === undefined) {
      throw new Error('no server');
    }
    const replica = await startRedisServer({ args: ['--replicaof', server.host, String(server.port)] });
    const replicaClient = new Redis({ host: replica.host, port: replica.port });
    try {
      await eventually('the replica is in sync', async () =>
        (await replicaClient.info('replication')).includes('master_link_status:up'),
      );
      const keyPrefix = freshPrefix();
      const strategy = new RedisLeaseStrategy(connect(), {
        keyPrefix,
        leaseTimeMs: 3_000,
        waitForReplicas: { replicas: 1, timeoutMs: 2_000 },
      });
      expect(await strategy.register('orders', 'node-a')).toBe(true);
      expect(await replicaClient.get(strategy.leaseKeys('orders').token)).toBe('0');
      await strategy.shutdown();
    } finally {
      replicaClient.disconnect();
      await replica.stop();
    }
  });

  // After the case above: the server had a replica, and keeps its replication backlog for repl-backlog-ttl.
  it("'auto' in a process that never saw the replica refuses a server that lists none but had one; opted out, it grants", async () => {
    if (server === undefined) {
      throw new Error('no server');
    }
    await eventually('the server lists no replica', async () =>
      /^connected_slaves:0\r?$/mu.test(await connect().info('replication')),
    );
    const keyPrefix = freshPrefix();
    const errors: unknown[] = [];
    const fresh = new RedisLeaseStrategy(connect(), {
      keyPrefix,
      leaseTimeMs: 3_000,
      onError: (error) => errors.push(error),
    });
    const optedOut = new RedisLeaseStrategy(connect(), { keyPrefix, leaseTimeMs: 3_000, waitForReplicas: false });
    expect(await fresh.register('orders', 'node-a')).toBe(false);
    expect(String(errors[0])).toMatch(
      /replication backlog is active.*waitForReplicas false takes leases without waiting/u,
    );
    expect(await optedOut.register('orders', 'node-b')).toBe(true);
    await Promise.all([fresh.shutdown(), optedOut.shutdown()]);
  });

  it('refuses a waitForReplicas that WAIT would turn into a wait forever', () => {
    expect(() => new RedisLeaseStrategy(connect(), { waitForReplicas: { replicas: 1, timeoutMs: 0 } })).toThrow(
      RangeError,
    );
  });
});

describe('RedisLeaseStrategy renewals', () => {
  it('renews all the leases it holds with one script per refresh interval, however many', async () => {
    const { client: counting, calls } = countingCalls(connect(), ['eval', 'pipeline']);
    const strategy = new RedisLeaseStrategy(counting, {
      keyPrefix: freshPrefix(),
      leaseTimeMs: 600,
      waitForReplicas: false,
    });
    for (let partition = 0; partition < 32; partition += 1) {
      expect(await strategy.register(`orders/${partition}`, 'node-a')).toBe(true);
    }
    calls.set('eval', 0).set('pipeline', 0);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const roundTrips = (calls.get('eval') ?? 0) + (calls.get('pipeline') ?? 0);
    // Five intervals of 200 ms: one round trip each (a slow machine may fit one fewer), never one per lease.
    expect(roundTrips).toBeGreaterThanOrEqual(3);
    expect(roundTrips).toBeLessThanOrEqual(6);
    expect(strategy.hasLock('orders/31', 'node-a')).toBe(true);
    await strategy.shutdown();
  });
});
