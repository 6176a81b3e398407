import { describe, expect, it } from 'vitest';
import {
  CheckpointKeyLayout,
  defaultRedisLeaseKeyPrefix,
  defaultRedisVersionKeyPrefix,
  parseRedisLeaseKey,
  redisLeaseKeys,
} from '../../../runtime/store-layout-entry.js';
import { clusterHashedPart, parseRedisLeaseValue } from '../../../runtime/redis/index.js';
import { clusterAlignableIds, clusterUnalignableIds, slotEdgeIds } from './id-shapes.js';

// The operator CLI finds subscriptions by reading these keys back; each inverse must recognise exactly the keys the
// forward functions build, and nothing else.

const leasableIds = [...slotEdgeIds.filter((id) => id !== ''), '%', '%7B', '%257B', 'a b', 'x}:lease', '{a}:token'];

describe('parseRedisLeaseKey', () => {
  it.each(leasableIds)('reads back both keys of %j under the default prefix and under another', (id) => {
    for (const prefix of [defaultRedisLeaseKeyPrefix, '', 'app:leases:']) {
      const keys = redisLeaseKeys(prefix, id);
      expect(parseRedisLeaseKey(prefix, keys.lease)).toEqual({ subscriptionId: id, kind: 'lease' });
      expect(parseRedisLeaseKey(prefix, keys.token)).toEqual({ subscriptionId: id, kind: 'token' });
    }
  });

  it.each([
    ['another prefix', 'other:{orders}:lease'],
    ['no hash tag', `${defaultRedisLeaseKeyPrefix}orders:lease`],
    ['another suffix', `${defaultRedisLeaseKeyPrefix}{orders}:holder`],
    ['an empty id', `${defaultRedisLeaseKeyPrefix}{}:token`],
    ['an unencoded brace', `${defaultRedisLeaseKeyPrefix}{a{b}:lease`],
    ['a percent the strategy would have encoded', `${defaultRedisLeaseKeyPrefix}{100%}:lease`],
    ['an encoding the strategy never writes', `${defaultRedisLeaseKeyPrefix}{%41}:lease`],
    ['a lower-case encoding', `${defaultRedisLeaseKeyPrefix}{%7b}:lease`],
  ])('refuses a key with %s', (_, key) => {
    expect(parseRedisLeaseKey(defaultRedisLeaseKeyPrefix, key)).toBeUndefined();
  });
});

describe('parseRedisLeaseValue', () => {
  it.each([
    ['0 node-a 6f1c/1', { token: 0n, owner: 'node-a 6f1c/1' }],
    ['18446744073709551617 a b c', { token: 18446744073709551617n, owner: 'a b c' }],
  ])('reads %j', (value, expected) => {
    expect(parseRedisLeaseValue(value)).toEqual(expected);
  });

  it.each(['', '7', '7 ', '07 node', '-1 node', 'x node', ' 7 node'])('refuses %j', (value) => {
    expect(parseRedisLeaseValue(value)).toBeUndefined();
  });
});

describe('CheckpointKeyLayout, read backwards', () => {
  const layouts = [
    new CheckpointKeyLayout('', defaultRedisVersionKeyPrefix),
    new CheckpointKeyLayout('app:cp:', 'app:version:'),
  ];

  it.each(layouts)('finds the id behind the version key of every untagged id (%o)', (layout) => {
    for (const id of ['orders', 'a{b', '{', '{}{tenant}', ...clusterUnalignableIds]) {
      const { checkpointKey, versionKey } = layout.keysFor(id);
      expect(layout.subscriptionIdOf(checkpointKey)).toBe(id);
      expect(layout.versionKeyHashedPart(versionKey)).toBe(clusterHashedPart(checkpointKey));
      expect(layout.subscriptionIdOfVersionKey(versionKey)).toBe(id);
    }
  });

  it('gives only the hash tag of a tagged id, which the id must be found by', () => {
    const layout = new CheckpointKeyLayout('', defaultRedisVersionKeyPrefix);
    for (const id of ['{tenant}-orders', 'a{b{c}d}e', 'x{tenant}y']) {
      const { checkpointKey, versionKey } = layout.keysFor(id);
      expect(layout.versionKeyHashedPart(versionKey)).toBe(clusterHashedPart(checkpointKey));
      expect(layout.subscriptionIdOfVersionKey(versionKey)).toBeUndefined();
    }
    expect(clusterAlignableIds).toContain('{tenant}-orders');
  });

  it('refuses keys that are not version keys of the layout', () => {
    const layout = new CheckpointKeyLayout('app:', 'app:version:');
    const { versionKey } = layout.keysFor('orders');
    for (const key of [
      'orders',
      versionKey.slice(0, -1),
      `${versionKey}0`,
      versionKey.toUpperCase(),
      versionKey.replace('app:version:', 'other:'),
      `app:version:orders${'0'.repeat(64)}`,
    ]) {
      expect(layout.subscriptionIdOfVersionKey(key)).toBeUndefined();
    }
    // The hashed part of a well-shaped key whose digest is of another id names no subscription.
    const forged = `app:version:{app:orders}${'0'.repeat(64)}`;
    expect(layout.versionKeyHashedPart(forged)).toBe('app:orders');
    expect(layout.subscriptionIdOfVersionKey(forged)).toBeUndefined();
  });

  it('names no id for a key outside the checkpoint prefix or inside the version namespace', () => {
    const layout = new CheckpointKeyLayout('app:', 'app:version:');
    expect(layout.subscriptionIdOf('other:orders')).toBeUndefined();
    expect(layout.subscriptionIdOf('app:version:{x}0')).toBeUndefined();
    expect(layout.subscriptionIdOf('app:')).toBe('');
  });
});
