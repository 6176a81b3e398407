import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { Redis as Redis6 } from 'ioredis6';
import { CheckpointWriteCondition } from '../../../runtime/index.js';
import {
  RedisDualAnchorCheckpointStore,
  withReadModifyWriteDefaults,
  type DualAnchorCheckpointStore,
} from '../../../runtime/dual-anchor-entry.js';
import {
  dualAnchorIfAbsentScript,
  dualAnchorNotOlderThanScript,
  resetAfterHistoryLostNotOlderThanScript,
  resetAfterHistoryLostScript,
} from '../../../runtime/redis/dual-anchor-scripts.js';
import { describeDualAnchorCheckpointStoreConformance } from '../../../runtime/testing/index.js';
import { registeredCases } from '../../support/conformance/registered-cases.js';
import { expectAnchorWritersNeverUndoEachOther } from '../../support/dual-anchor/two-anchor-writers.js';
import { startRedisServer, type RedisServerProcess } from '../../support/redis/index.js';
import { describeDualAnchorStoredVersionHardening } from './stored-version-hardening.js';

const { notOlderThan, ifAbsent } = CheckpointWriteCondition;
const at = new Date('2024-05-01T10:00:00.123Z');
let server: RedisServerProcess | undefined;
const clients: { disconnect(): void }[] = [];

beforeAll(async () => {
  server = await startRedisServer();
});

afterAll(async () => {
  for (const client of clients) {
    client.disconnect();
  }
  await server?.stop();
});

/** A new ioredis 5 client on this suite's server; disconnected in afterAll. */
function client(): Redis {
  if (server === undefined) {
    throw new Error('The redis-server of this suite did not start; see the beforeAll error.');
  }
  const connected = new Redis({ host: server.host, port: server.port });
  clients.push(connected);
  return connected;
}

let shared: Redis | undefined;
async function emptied(): Promise<Redis> {
  shared ??= client();
  await shared.flushall();
  return shared;
}

let shared6: Redis6 | undefined;
async function emptied6(): Promise<Redis6> {
  if (server === undefined) {
    throw new Error('The redis-server of this suite did not start; see the beforeAll error.');
  }
  if (shared6 === undefined) {
    shared6 = new Redis6({ host: server.host, port: server.port });
    clients.push(shared6);
  }
  await shared6.flushall();
  return shared6;
}

describeDualAnchorCheckpointStoreConformance(
  'RedisDualAnchorCheckpointStore on a real redis-server',
  async () => new RedisDualAnchorCheckpointStore(await emptied()),
);
describeDualAnchorCheckpointStoreConformance(
  'RedisDualAnchorCheckpointStore over ioredis 6 (RESP3) on a real redis-server',
  async () => new RedisDualAnchorCheckpointStore(await emptied6()),
);

describeDualAnchorStoredVersionHardening('a real redis-server', emptied);

describe('RedisDualAnchorCheckpointStore on a real redis-server', () => {
  it('runs the #!lua variants on Redis 7, and reloads them with EVAL after SCRIPT FLUSH', async () => {
    const redis = await emptied();
    expect(await redis.info('server')).toMatch(/^redis_version:7\./m);
    const store = new RedisDualAnchorCheckpointStore(redis);
    await redis.script('FLUSH');
    await store.saveSeen('orders', 'pinned', at, undefined, ifAbsent());
    await store.saveProcessed('orders', 'fenced', at, at, notOlderThan(1));
    await store.resetAfterHistoryLost('orders', 'fresh', 'fenced', at);
    await store.resetAfterHistoryLost('orders', 'fresh', null, at, notOlderThan(2));
    const shas = [
      dualAnchorIfAbsentScript.withShebang.sha1,
      dualAnchorNotOlderThanScript.withShebang.sha1,
      resetAfterHistoryLostScript.withShebang.sha1,
      resetAfterHistoryLostNotOlderThanScript.withShebang.sha1,
      dualAnchorNotOlderThanScript.withoutShebang.sha1,
    ];
    expect(await redis.script('EXISTS', ...shas)).toEqual([1, 1, 1, 1, 0]);
    await redis.script('FLUSH');
    await store.saveProcessed('orders', 'after-flush', at, undefined, notOlderThan(3));
    expect(await store.findByStreamName('orders')).toMatchObject({ lastProcessedToken: 'after-flush' });
  });

  it('decides notOlderThan(2**63 - 1) against a stored 2**63 - 2 exactly, in both scripts', async () => {
    const store = new RedisDualAnchorCheckpointStore(await emptied());
    await store.saveProcessed('orders', 'older', at, undefined, notOlderThan(2n ** 63n - 2n));
    await store.saveProcessed('orders', 'newer', at, undefined, notOlderThan(2n ** 63n - 1n));
    await expect(
      store.resetAfterHistoryLost('orders', null, 'newer', at, notOlderThan(2n ** 63n - 2n)),
    ).rejects.toMatchObject({ storedVersion: 2n ** 63n - 1n });
    expect(await store.findByStreamName('orders')).toMatchObject({ lastProcessedToken: 'newer' });
  });

  for (const [conditionName, condition] of [
    ['any()', undefined],
    ['notOlderThan(5)', notOlderThan(5)],
  ] as const) {
    it(`resetAfterHistoryLost under ${conditionName} over a lastProcessed that is no pair names key, field and value as a read does, and writes nothing`, async () => {
      const redis = await emptied();
      const store = new RedisDualAnchorCheckpointStore(redis);
      await store.saveSeen('orders', 'seen', at, undefined, notOlderThan(1));
      const key = store.recordKey('orders');
      await redis.hset(key, 'lastProcessed', 'garbage');
      const before = await redis.hgetall(key);
      const message =
        'Dual-anchor record "checkpoint-fencing:anchors:orders" holds "garbage" in field "lastProcessed", not an anchor ' +
        'pair [<epoch ms or null>,<JSON token or null>]. Something other than RedisDualAnchorCheckpointStore wrote it; ' +
        'fix the field with HSET or delete the record (the stream then resumes from its start policy).';
      await expect(store.findByStreamName('orders')).rejects.toThrow(new Error(message));
      await expect(store.resetAfterHistoryLost('orders', 'fresh', 'dead', at, condition)).rejects.toThrow(
        new Error(message),
      );
      await expect(store.resetAfterHistoryLost('orders', 'fresh', null, at, condition)).rejects.toThrow(
        new Error(message),
      );
      expect(await redis.hgetall(key)).toEqual(before);
    });
  }

  it('two processes writing one anchor each, over their own connections, never undo each other', async () => {
    await emptied();
    const seenWriter = new RedisDualAnchorCheckpointStore(client());
    const processedWriter = new RedisDualAnchorCheckpointStore(client());
    const reader = new RedisDualAnchorCheckpointStore(client());
    await expectAnchorWritersNeverUndoEachOther({ seenWriter, processedWriter, reader, writes: 1_000 });
  });

  it('shows the trap is real on Redis too: withReadModifyWriteDefaults over this store fails the interleaved-writers case', async () => {
    const cases = registeredCases((recorder) => {
      describeDualAnchorCheckpointStoreConformance(
        'read-modify-write over Redis',
        async (): Promise<DualAnchorCheckpointStore> =>
          withReadModifyWriteDefaults(new RedisDualAnchorCheckpointStore(await emptied())),
        recorder,
      );
    });
    const [name, interleaved] =
      [...cases].find(([caseName]) => caseName.includes('interleaved saveSeen and saveProcessed')) ?? [];
    expect(name).toBeDefined();
    const failure = await interleaved?.().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(String((failure as { actual?: unknown } | undefined)?.actual)).toMatch(/a stale value brought back/);
  }, 120_000);
});
