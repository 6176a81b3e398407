import { describe, expect, it } from 'vitest';
import { judgeSubscription, needsAttention, type SubscriptionState } from '../../operator/subscription-health.js';

const live = { holder: 'node-a 6f1c2d3e-0000-4000-8000-000000000000/1', token: 5n, expiresInMs: 9_000 };
const base: SubscriptionState = {
  id: 'orders',
  checkpoint: '42',
  storedVersion: 5n,
  lease: live,
  tokenCounter: 5n,
  clusterUnaligned: false,
  records: {},
  problems: [],
};

// One row a state, and the flags it must raise: exactly those, each defined in ADR 1003 and doc/operations.md.
const cases: readonly (readonly [string, Partial<SubscriptionState>, readonly string[], bigint | undefined])[] = [
  ['a holder writing with its token', {}, [], 6n],
  ['stuck: the counter was deleted under a live lease', { tokenCounter: undefined }, ['stuck'], 0n],
  [
    'stuck: the counter fell below the stored version',
    { tokenCounter: 3n, lease: { ...live, token: 3n } },
    ['stuck'],
    4n,
  ],
  [
    'stuck: the next token would equal the stored version',
    { tokenCounter: 4n, lease: undefined },
    ['stuck', 'expired-lease'],
    5n,
  ],
  ['not stuck: the stored version is the counter itself', { tokenCounter: 5n }, [], 6n],
  ['stuck: a version and no counter, nobody holding', { tokenCounter: undefined, lease: undefined }, ['stuck'], 0n],
  [
    'unfenceable on a Cluster, with no version',
    { clusterUnaligned: true, storedVersion: undefined, tokenCounter: undefined, lease: undefined },
    ['unfenceable'],
    0n,
  ],
  [
    'unfenceable, its version key left behind by forStandalone',
    { clusterUnaligned: true },
    ['unfenceable', 'stray-version'],
    6n,
  ],
  [
    'not stray: a version with no checkpoint and no live lease is a fence',
    { checkpoint: undefined, lease: undefined },
    ['expired-lease'],
    6n,
  ],
  [
    'not stray: what reset leaves, the counter raised to the fence',
    { checkpoint: undefined, storedVersion: 7n, tokenCounter: 7n, lease: undefined },
    ['expired-lease'],
    8n,
  ],
  ['not stray: a live holder fenced before its first checkpoint', { checkpoint: undefined }, [], 6n],
  [
    'not stray: a fence whose lease expired, still recorded (PostgreSQL)',
    { checkpoint: undefined, lease: { ...live, expiresInMs: -10 } },
    ['expired-lease'],
    6n,
  ],
  ['no-version: a checkpoint written by any() under a lease', { storedVersion: undefined }, ['no-version'], 6n],
  [
    'not no-version: no lease was ever taken on it',
    { storedVersion: undefined, tokenCounter: undefined, lease: undefined },
    [],
    0n,
  ],
  ['expired-lease: the lease ran out, nobody took over', { lease: undefined }, ['expired-lease'], 6n],
  ['expired-lease: an expired lease still recorded', { lease: { ...live, expiresInMs: 0 } }, ['expired-lease'], 6n],
  ['a lease with no expiry is live', { lease: { ...live, expiresInMs: undefined } }, [], 6n],
  [
    'nothing stored at all',
    { checkpoint: undefined, storedVersion: undefined, tokenCounter: undefined, lease: undefined },
    [],
    0n,
  ],
];

describe('judgeSubscription', () => {
  it.each(cases)('%s', (_, state, flags, nextToken) => {
    const judged = judgeSubscription({ ...base, ...state });
    expect(judged.flags).toEqual(flags);
    expect(judged.nextToken).toBe(nextToken);
    expect(needsAttention(judged)).toBe(flags.length > 0);
  });

  it('flags a version key whose id nothing names as stray', () => {
    const judged = judgeSubscription({
      ...base,
      id: undefined,
      checkpoint: undefined,
      lease: undefined,
      tokenCounter: undefined,
    });
    expect(judged.flags).toEqual(['stray-version']);
    expect(judged.nextToken).toBeUndefined();
  });

  it('raises no flag on a row with a problem, which still needs attention', () => {
    const judged = judgeSubscription({ ...base, storedVersion: undefined, problems: ['Version key … holds "007"'] });
    expect(judged.flags).toEqual([]);
    expect(needsAttention(judged)).toBe(true);
  });
});
