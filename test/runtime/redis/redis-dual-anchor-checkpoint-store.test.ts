import { afterAll, describe, expect, it } from 'vitest';
import { CheckpointWriteCondition } from '../../../runtime/index.js';
import { RedisDualAnchorCheckpointStore } from '../../../runtime/dual-anchor-entry.js';
import {
  dualAnchorNotOlderThanScript,
  resetAfterHistoryLostScript,
} from '../../../runtime/redis/dual-anchor-scripts.js';
import { describeDualAnchorCheckpointStoreConformance } from '../../../runtime/testing/index.js';
import { recordingRedisMock } from './recording-redis-mock.js';
import { describeDualAnchorStoredVersionHardening } from './stored-version-hardening.js';

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;
const at = new Date('2024-05-01T10:00:00.123Z');
const mockClients = new WeakMap<object, { disconnect(): void }>();

describeDualAnchorCheckpointStoreConformance(
  'RedisDualAnchorCheckpointStore on ioredis-mock',
  async () => {
    const { client } = await recordingRedisMock();
    const store = new RedisDualAnchorCheckpointStore(client);
    mockClients.set(store, client);
    return store;
  },
  {
    teardown: (store) => {
      mockClients.get(store)?.disconnect();
    },
  },
);

const hardeningClients: { disconnect(): void }[] = [];
afterAll(() => {
  for (const client of hardeningClients.splice(0)) {
    client.disconnect();
  }
});

describeDualAnchorStoredVersionHardening(
  'ioredis-mock',
  async () => {
    const { client } = await recordingRedisMock();
    hardeningClients.push(client);
    return client;
  },
  { luaReadsEmptyAsNil: true },
);

describe('RedisDualAnchorCheckpointStore on ioredis-mock', () => {
  it('keeps one hash per stream under keyPrefix + streamName, with readable fields and the version beside them', async () => {
    const { client } = await recordingRedisMock();
    const store = new RedisDualAnchorCheckpointStore(client);
    await store.save(
      {
        streamName: 'orders',
        instanceId: 'node-1',
        lastSeenToken: { b: 2, a: 1 },
        lastSeenTimestamp: at,
        lastProcessedToken: null,
        lastProcessedTimestamp: new Date(0),
        lastHeartbeatTimestamp: null,
        metadata: { region: 'eu' },
      },
      notOlderThan(7),
    );
    expect(store.recordKey('orders')).toBe('checkpoint-fencing:anchors:orders');
    expect(await client.hgetall('checkpoint-fencing:anchors:orders')).toEqual({
      instanceId: 'node-1',
      lastSeen: `[${at.getTime()},{"a":1,"b":2}]`,
      lastProcessed: '[0,null]',
      lastHeartbeatTimestamp: '',
      metadata: '{"region":"eu"}',
      writeVersion: '7',
    });
    expect(JSON.parse((await client.hget('checkpoint-fencing:anchors:orders', 'lastSeen')) ?? '')).toEqual([
      at.getTime(),
      { a: 1, b: 2 },
    ]);
    const prefixed = new RedisDualAnchorCheckpointStore(client, { keyPrefix: 'app:{anchors}:' });
    await prefixed.saveHeartbeat('orders', at);
    expect(await client.hgetall('app:{anchors}:orders')).toEqual({ lastHeartbeatTimestamp: String(at.getTime()) });
    client.disconnect();
  });

  it('an unconditional partial write is one HSET of its own fields; find is one HGETALL; delete one DEL', async () => {
    const { client, calls } = await recordingRedisMock();
    const store = new RedisDualAnchorCheckpointStore(client);
    await store.saveProcessed('orders', { position: 9 }, at, new Date(1));
    await store.saveSeen('orders', 'seen', at, undefined, any());
    await store.saveHeartbeat('orders', new Date(2));
    await store.findByStreamName('orders');
    await store.delete('orders');
    const key = 'checkpoint-fencing:anchors:orders';
    expect(calls).toEqual([
      ['hset', key, 'lastProcessed', `[${at.getTime()},{"position":9}]`, 'lastHeartbeatTimestamp', '1'],
      ['hset', key, 'lastSeen', `[${at.getTime()},"seen"]`],
      ['hset', key, 'lastHeartbeatTimestamp', '2'],
      ['hgetall', key],
      ['del', key],
    ]);
    client.disconnect();
  });

  it('a conditional write is one EVALSHA over the one key, falling back to EVAL once on NOSCRIPT', async () => {
    const { client, calls } = await recordingRedisMock();
    const store = new RedisDualAnchorCheckpointStore(client);
    await store.saveHeartbeat('orders', new Date(1), notOlderThan(1));
    await store.saveHeartbeat('orders', new Date(2), notOlderThan(2));
    const key = 'checkpoint-fencing:anchors:orders';
    const { sha1, text } = dualAnchorNotOlderThanScript.withoutShebang;
    expect(calls).toEqual([
      ['info', 'server'],
      ['evalsha', sha1, 1, key, '1', 'lastHeartbeatTimestamp', '1'],
      ['eval', text, 1, key, '1', 'lastHeartbeatTimestamp', '1'],
      ['evalsha', sha1, 1, key, '2', 'lastHeartbeatTimestamp', '2'],
    ]);
    client.disconnect();
  });

  it('resetAfterHistoryLost is one script run even under any(), with the guard and the fresh pair as arguments', async () => {
    const { client, calls } = await recordingRedisMock();
    const store = new RedisDualAnchorCheckpointStore(client);
    await store.resetAfterHistoryLost('orders', { fresh: 1 }, { dead: 1 }, at);
    await store.resetAfterHistoryLost('orders', null, null, at);
    const key = 'checkpoint-fencing:anchors:orders';
    const { sha1 } = resetAfterHistoryLostScript.withoutShebang;
    expect(calls.filter(([command]) => command === 'evalsha')).toEqual([
      ['evalsha', sha1, 1, key, '1', '{"dead":1}', `[${at.getTime()},{"fresh":1}]`, String(at.getTime())],
      ['evalsha', sha1, 1, key, '0', '', '', ''],
    ]);
    client.disconnect();
  });

  it('compares versions as decimal strings: by length first, exactly above 2**63', async () => {
    const { client } = await recordingRedisMock();
    const store = new RedisDualAnchorCheckpointStore(client);
    await store.saveHeartbeat('orders', at, notOlderThan(9));
    await store.saveHeartbeat('orders', at, notOlderThan(10));
    await expect(store.saveHeartbeat('orders', at, notOlderThan(9))).rejects.toMatchObject({ storedVersion: 10n });
    await store.saveHeartbeat('big', at, notOlderThan(2n ** 64n));
    await expect(
      store.resetAfterHistoryLost('big', null, null, at, notOlderThan(2n ** 64n - 1n)),
    ).rejects.toMatchObject({ storedVersion: 2n ** 64n });
    client.disconnect();
  });

  it('ifAbsent() refuses while the hash exists, whatever fields it holds', async () => {
    const { client } = await recordingRedisMock();
    const store = new RedisDualAnchorCheckpointStore(client);
    await client.hset('checkpoint-fencing:anchors:orders', 'somethingElse', 'x');
    await expect(store.saveSeen('orders', 1, at, undefined, ifAbsent())).rejects.toMatchObject({
      storedVersion: undefined,
    });
    client.disconnect();
  });

  const pair = 'an anchor pair [<epoch ms or null>,<JSON token or null>]';
  for (const [field, value, expected] of [
    ['lastSeen', '[yesterday,"t"]', pair],
    ['lastSeen', '{"t":1}', pair],
    ['lastProcessed', '[1,{not json]', pair],
    ['lastProcessed', '[1,]', pair],
    ['lastProcessed', '[253402300800000,"t"]', pair],
    ['lastHeartbeatTimestamp', '253402300800000', 'epoch milliseconds (years 1 to 9999) as a decimal integer'],
    ['lastHeartbeatTimestamp', '1.5', 'epoch milliseconds (years 1 to 9999) as a decimal integer'],
    ['metadata', '[1,2]', 'a JSON object'],
  ] as const) {
    it(`reports a record whose ${field} holds ${value}, naming key, field and value`, async () => {
      const { client } = await recordingRedisMock();
      const store = new RedisDualAnchorCheckpointStore(client);
      await store.saveHeartbeat('orders', at);
      await client.hset('checkpoint-fencing:anchors:orders', field, value);
      await expect(store.findByStreamName('orders')).rejects.toThrow(
        `Dual-anchor record "checkpoint-fencing:anchors:orders" holds ${JSON.stringify(value)} in field "${field}", not ${expected}.`,
      );
      client.disconnect();
    });
  }

  it('refuses a keyPrefix that is not a string or holds a lone surrogate, and takes an empty one', async () => {
    const { client } = await recordingRedisMock();
    expect(() => new RedisDualAnchorCheckpointStore(client, { keyPrefix: 'a\uD800' })).toThrow(TypeError);
    expect(() => new RedisDualAnchorCheckpointStore(client, { keyPrefix: 42 as never })).toThrow(TypeError);
    const bare = new RedisDualAnchorCheckpointStore(client, { keyPrefix: '' });
    expect(bare.recordKey('orders')).toBe('orders');
    client.disconnect();
  });

  it('sends nothing for bad input', async () => {
    const { client, calls } = await recordingRedisMock();
    const store = new RedisDualAnchorCheckpointStore(client);
    await expect(store.saveSeen('orders', (() => 1) as never, at)).rejects.toThrow(TypeError);
    await expect(store.saveProcessed('orders', 1, at, undefined, { kind: 'later' } as never)).rejects.toThrow(
      TypeError,
    );
    await expect(store.findByStreamName('')).rejects.toThrow(TypeError);
    expect(() => store.recordKey('')).toThrow(TypeError);
    expect(calls).toEqual([]);
    client.disconnect();
  });
});
