import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  CheckpointWriteNotReplicatedError,
  RedisCheckpointStorage,
  RedisLeaseStrategy,
  type RedisCheckpointStorageOptions,
} from '../../../runtime/index.js';
import { eventually } from '../../support/leases/event-log.js';
import { startReplicatedRedis, type ReplicatedRedisProcess } from '../../support/redis/index.js';

// waitForReplicas on a real master with a real replica (ADR 1101). A private pair: the suite stops the replica with
// SIGSTOP, which would stall every other suite's writes on a shared server. Under SIGSTOP the replica's kernel still
// takes the replication stream, so nothing is lost here; what stops is its acknowledgement, which is what WAIT counts.

const { any, ifAbsent, notOlderThan } = CheckpointWriteCondition;
let servers: ReplicatedRedisProcess | undefined;
const clients: Redis[] = [];
let prefixes = 0;

beforeAll(async () => {
  servers = await startReplicatedRedis();
});

afterAll(async () => {
  servers?.replica.resume();
  for (const client of clients.splice(0)) {
    client.disconnect();
  }
  await servers?.stop();
});

function started(): ReplicatedRedisProcess {
  if (servers === undefined) {
    throw new Error('The master and replica of this suite did not start; see the beforeAll error.');
  }
  return servers;
}

/** A new connection to the master (`replica: true`: to the replica), as each node of a deployment has its own. */
function connect(options: { replica?: boolean } = {}): Redis {
  const { master, replica } = started();
  const server = options.replica === true ? replica : master;
  const client = new Redis({ host: server.host, port: server.port });
  clients.push(client);
  return client;
}

/** Key prefixes no other case uses. */
function fresh(): { keyPrefix: string; versionKeyPrefix: string } {
  prefixes += 1;
  return { keyPrefix: `wait-${prefixes}:`, versionKeyPrefix: `wait-${prefixes}-version:` };
}

/** How many WAIT commands the master has run so far. */
async function waitsRun(admin: Redis): Promise<number> {
  return Number(/^cmdstat_wait:calls=(\d+)/mu.exec(await admin.info('commandstats'))?.[1] ?? 0);
}

/** Runs `body` with the replica stopped (SIGSTOP): it acknowledges nothing until it is continued. */
async function withReplicaStopped<T>(body: () => Promise<T>): Promise<T> {
  const { replica } = started();
  replica.pause();
  try {
    return await body();
  } finally {
    replica.resume();
  }
}

/** A storage over a new connection to the master, under key prefixes of its own (returned as `prefixes`). */
async function storageWith(options: RedisCheckpointStorageOptions = {}): Promise<{
  storage: RedisCheckpointStorage;
  client: Redis;
  prefixes: { keyPrefix: string; versionKeyPrefix: string };
}> {
  const client = connect();
  await client.ping();
  const prefixes = fresh();
  return { storage: new RedisCheckpointStorage(client, { ...prefixes, ...options }), client, prefixes };
}

describe("RedisCheckpointStorage's default waitForReplicas ('auto') on a master with one replica", () => {
  it('reports a notOlderThan write accepted once the replica has it, after one WAIT', async () => {
    const admin = connect();
    const onReplica = connect({ replica: true });
    const { storage, prefixes } = await storageWith();
    await storage.save('orders', 'warm-up', notOlderThan(1));
    const before = await waitsRun(admin);
    await storage.save('orders', 'offset-7', notOlderThan(2));
    expect(await waitsRun(admin)).toBe(before + 1);
    // Read on the replica right after the save resolved: WAIT only answers once the replica applied the write.
    expect(await onReplica.get(`${prefixes.keyPrefix}orders`)).toBe('offset-7');
    expect(await new RedisCheckpointStorage(onReplica, prefixes).writeVersion('orders')).toBe(2n);
  });

  it('sends one WAIT for all the conditional writes of one tick, behind them in the one pipeline', async () => {
    const admin = connect();
    const { storage } = await storageWith();
    await storage.save('{t}warm-up', 'cp', notOlderThan(1));
    const before = await waitsRun(admin);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, (_, index) => storage.save(`{t}orders-${index}`, `cp-${index}`, notOlderThan(3))),
    );
    expect(outcomes.every(({ status }) => status === 'fulfilled')).toBe(true);
    expect(await waitsRun(admin)).toBe(before + 1);
  });

  it('rejects a write the replica did not acknowledge in time with CheckpointWriteNotReplicatedError, never a refusal', async () => {
    const { storage, client, prefixes } = await storageWith();
    const { keyPrefix } = prefixes;
    await storage.save('orders', 'before', notOlderThan(4));
    const startedAt = performance.now();
    const error = await withReplicaStopped(() =>
      storage.save('orders', 'during', notOlderThan(5)).catch((e: unknown) => e),
    );
    const waitedMs = performance.now() - startedAt;
    expect(error).toBeInstanceOf(CheckpointWriteNotReplicatedError);
    expect(error).not.toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    expect(error).toMatchObject({
      subscriptionId: 'orders',
      operation: 'notOlderThan(5)',
      replicas: 1,
      acknowledged: 0,
      timeoutMs: 500,
    });
    expect(String(error)).toMatch(/may or may not survive a failover\. This is not a refusal/u);
    // The default timeout, give or take a loaded machine.
    expect(waitedMs).toBeGreaterThanOrEqual(450);
    // "Maybe": the master has it.
    expect(await client.get(`${keyPrefix}orders`)).toBe('during');
    expect(await storage.writeVersion('orders')).toBe(5n);
  });

  it('rejects ifAbsent() and advanceWriteVersion the same way, while a refusal stays a refusal and any() does not wait', async () => {
    const admin = connect();
    const { storage } = await storageWith({ waitForReplicas: { replicas: 'auto', timeoutMs: 100 } });
    await storage.save('fenced', 'cp', notOlderThan(9));
    await storage.save('pinned', 'start', ifAbsent());
    const before = await waitsRun(admin);
    const [pin, advance, refused, plain] = await withReplicaStopped(async () => [
      await storage.save('new', 'start', ifAbsent()).catch((e: unknown) => e),
      await storage.advanceWriteVersion('fenced', 10n).catch((e: unknown) => e),
      await storage.save('fenced', 'stale', notOlderThan(3)).catch((e: unknown) => e),
      await storage.save('plain', 'unfenced', any()),
    ]);
    expect(pin).toBeInstanceOf(CheckpointWriteNotReplicatedError);
    expect(pin).toMatchObject({ operation: 'ifAbsent()', timeoutMs: 100 });
    expect(advance).toBeInstanceOf(CheckpointWriteNotReplicatedError);
    expect(advance).toMatchObject({ operation: 'advanceWriteVersion(10)' });
    expect(refused).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    expect(refused).toMatchObject({ storedVersion: 10n });
    expect(plain).toBe('unfenced');
    // The refusal wrote nothing; its WAIT still went out with it (the storage cannot know the verdict beforehand).
    expect(await waitsRun(admin)).toBe(before + 3);
  });

  it('after a NOSCRIPT the EVAL fallback waits too, with a WAIT of its own', async () => {
    const admin = connect();
    const { storage } = await storageWith();
    // Two writes: the first runs before the server's version is known, in the variant every version takes; the second
    // loads the variant this server runs from now on.
    await storage.save('orders', 'cp-0', notOlderThan(1));
    await storage.save('orders', 'cp-1', notOlderThan(1));
    await admin.script('FLUSH');
    const before = await waitsRun(admin);
    await storage.save('orders', 'cp-2', notOlderThan(2));
    // The WAIT behind the EVALSHA that met NOSCRIPT (nothing new to wait for), then the one behind the EVAL.
    expect(await waitsRun(admin)).toBe(before + 2);
    await admin.script('FLUSH');
    await expect(withReplicaStopped(() => storage.save('orders', 'cp-3', notOlderThan(3)))).rejects.toBeInstanceOf(
      CheckpointWriteNotReplicatedError,
    );
  });
});

describe('RedisCheckpointStorage with an explicit waitForReplicas, and with it off', () => {
  it('waitForReplicas: false sends no WAIT and reports the write accepted while the replica is stopped', async () => {
    const admin = connect();
    const { storage } = await storageWith({ waitForReplicas: false });
    const before = await waitsRun(admin);
    await withReplicaStopped(() => storage.save('orders', 'unconfirmed', notOlderThan(1)));
    expect(await waitsRun(admin)).toBe(before);
  });

  it('{ replicas: 2 } on a master with one replica rejects every conditional write as not replicated', async () => {
    const { storage } = await storageWith({ waitForReplicas: { replicas: 2, timeoutMs: 50 } });
    await expect(storage.save('orders', 'cp', notOlderThan(1))).rejects.toMatchObject({
      name: 'CheckpointWriteNotReplicatedError',
      replicas: 2,
      acknowledged: 1,
    });
  });
});

describe("RedisLeaseStrategy's default waitForReplicas ('auto') on a master with one replica", () => {
  it('grants a lease once the replica has its token, after one WAIT', async () => {
    const admin = connect();
    const onReplica = connect({ replica: true });
    const keyPrefix = fresh().keyPrefix;
    const strategy = new RedisLeaseStrategy(connect(), { keyPrefix, leaseTimeMs: 3_000 });
    const before = await waitsRun(admin);
    expect(await strategy.register('orders', 'node-a')).toBe(true);
    expect(await waitsRun(admin)).toBe(before + 1);
    expect(await onReplica.get(strategy.leaseKeys('orders').token)).toBe('0');
    await strategy.shutdown();
  });

  it('refuses every grant the replica did not acknowledge, within a tenth of the lease time; opted out, it grants', async () => {
    const keyPrefix = fresh().keyPrefix;
    const errors: unknown[] = [];
    const waiting = new RedisLeaseStrategy(connect(), {
      keyPrefix,
      leaseTimeMs: 2_000,
      onError: (error) => errors.push(error),
    });
    const optedOut = new RedisLeaseStrategy(connect(), {
      keyPrefix: `${keyPrefix}out:`,
      leaseTimeMs: 2_000,
      waitForReplicas: false,
    });
    // A first grant fills the replica count, so the stopped replica is counted and waited for.
    expect(await waiting.register('warm-up', 'node-a')).toBe(true);
    const [granted, grantedOptedOut] = await withReplicaStopped(async () => [
      await waiting.register('orders', 'node-a'),
      await optedOut.register('orders', 'node-b'),
    ]);
    expect(granted).toBe(false);
    expect(waiting.fencingToken('orders')).toBeUndefined();
    expect(String(errors[0])).toMatch(/token 0 reached 0 of the 1 replica waitForReplicas waits for within 200 ms/u);
    expect(grantedOptedOut).toBe(true);
    await eventually('the waiting node takes the lease once the replica is back', () =>
      waiting.hasLock('orders', 'node-a'),
    );
    expect(waiting.fencingToken('orders')).toBe(1n);
    await Promise.all([waiting.shutdown(), optedOut.shutdown()]);
  });
});
