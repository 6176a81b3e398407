import { describe, expect, it } from 'vitest';
import { inspectionJsonRows, inspectionSummary, inspectionText } from '../../operator/inspection-report.js';
import { judgeSubscription, type SubscriptionState } from '../../operator/subscription-health.js';

const owner = 'node-a 6f1c2d3e-9b8a-4c7d-8e6f-5a4b3c2d1e0f/3';
const states: SubscriptionState[] = [
  {
    id: 'orders',
    checkpoint: '1042',
    storedVersion: 7n,
    lease: { holder: owner, token: 7n, expiresInMs: 13_200 },
    tokenCounter: 7n,
    clusterUnaligned: false,
    records: {},
    problems: [],
  },
  {
    id: 'id with spaces\n',
    checkpoint: 'x'.repeat(60),
    storedVersion: 18_446_744_073_709_551_617n,
    lease: { holder: 'hand-written', token: 1n, expiresInMs: -2_500 },
    tokenCounter: 1n,
    clusterUnaligned: false,
    records: {},
    problems: [],
  },
  {
    id: undefined,
    checkpoint: undefined,
    storedVersion: 2n,
    lease: undefined,
    tokenCounter: undefined,
    clusterUnaligned: false,
    records: { version: 'checkpoint-fencing:version:{tenant}00' },
    problems: [],
  },
];
const judged = states.map(judgeSubscription);

describe('the inspect report', () => {
  it('is a table with one row a subscription, values quoted and cut where they would not read as one word', () => {
    expect(inspectionText(judged, 'summary')).toBe(
      [
        'SUBSCRIPTION        CHECKPOINT                                VERSION               HOLDER             TOKEN  EXPIRES IN         NEXT TOKEN  FLAGS',
        'orders              1042                                      7                     node-a 6f1c2d3e/3  7      13.2 s             8           -',
        '"id with spaces\\n"  xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…  18446744073709551617  hand-written       1      expired 2.5 s ago  2           stuck,expired-lease',
        '?                   -                                         2                     -                  -      -                  -           stray-version',
        '? "checkpoint-fencing:version:{tenant}00": a version key whose subscription no checkpoint or lease key names (only a hash of the id is in the key)',
        'summary',
        '',
      ].join('\n'),
    );
  });

  it('in JSON, keeps every value whole and every version exact', () => {
    expect(inspectionJsonRows(judged)[1]).toEqual({
      id: 'id with spaces\n',
      checkpoint: 'x'.repeat(60),
      storedVersion: '18446744073709551617',
      leaseHolder: 'hand-written',
      leaseToken: '1',
      expiresInMs: -2_500,
      nextToken: '2',
      flags: ['stuck', 'expired-lease'],
      problems: [],
      records: {},
    });
  });

  it('sums up how many need attention and for what', () => {
    expect(inspectionSummary(judged, '12 keys scanned', 'redis://h:6379/0', 0.42)).toBe(
      '3 subscriptions, 2 flagged (stuck 1, stray-version 1, expired-lease 1); 12 keys scanned (redis://h:6379/0, 0.4 s)',
    );
    expect(inspectionSummary(judged.slice(0, 1), '1 ids read', 'redis://h:6379/0', 1)).toBe(
      '1 subscription, all healthy; 1 ids read (redis://h:6379/0, 1.0 s)',
    );
  });
});
