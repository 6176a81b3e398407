import { describe, expect, it } from 'vitest';
import {
  inspectionJsonRow,
  JsonInspectionReport,
  TextInspectionReport,
  type InspectionReport,
} from '../../operator/inspection-report.js';
import { InspectionTally } from '../../operator/inspection-tally.js';
import { PrometheusInspectionReport } from '../../operator/prometheus-inspection-report.js';
import {
  judgeSubscription,
  type JudgedSubscription,
  type SubscriptionState,
} from '../../operator/subscription-health.js';

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
const [orders, spaced, orphan] = judged as [JudgedSubscription, JudgedSubscription, JudgedSubscription];

/** What `report` prints for `batches`, one string a call of its output. */
function printed(
  create: (out: (text: string) => void) => InspectionReport,
  batches: readonly (typeof judged)[],
  summary = 'summary',
): string[] {
  const writes: string[] = [];
  const report = create((text) => writes.push(text));
  for (const batch of batches) {
    report.write(batch);
  }
  report.end(summary);
  return writes;
}

describe('the inspect report', () => {
  it('is a table with one row a subscription, values quoted and cut where they would not read as one word', () => {
    expect(printed((out) => new TextInspectionReport(out), [judged]).join('')).toBe(
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
    expect(inspectionJsonRow(spaced)).toEqual({
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

  it('sums up how many need attention and for what, from counts kept as the rows go by', () => {
    const tally = new InspectionTally();
    tally.add(judged.slice(0, 1));
    tally.add(judged.slice(1));
    expect(tally.summary('12 keys scanned', 'redis://h:6379/0', 0.42)).toBe(
      '3 subscriptions, 2 flagged (stuck 1, stray-version 1, expired-lease 1); 12 keys scanned (redis://h:6379/0, 0.4 s)',
    );
    expect(tally.needsAttention).toBe(true);
    const healthy = new InspectionTally();
    healthy.add(judged.slice(0, 1));
    expect(healthy.summary('1 ids read', 'redis://h:6379/0', 1)).toBe(
      '1 subscription, all healthy; 1 ids read (redis://h:6379/0, 1.0 s)',
    );
    expect(healthy.needsAttention).toBe(false);
  });

  it('prints each batch as it comes once the first rows fixed the column widths; a wider cell later pushes its row right', () => {
    const writes = printed((out) => new TextInspectionReport(out, 1), [[orders], [spaced], [orphan]]);
    expect(writes).toEqual([
      'SUBSCRIPTION  CHECKPOINT  VERSION  HOLDER             TOKEN  EXPIRES IN  NEXT TOKEN  FLAGS\n',
      'orders        1042        7        node-a 6f1c2d3e/3  7      13.2 s      8           -\n',
      '"id with spaces\\n"  xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…  18446744073709551617  hand-written       1      expired 2.5 s ago  2           stuck,expired-lease\n',
      '?             -           2        -                  -      -           -           stray-version\n' +
        '? "checkpoint-fencing:version:{tenant}00": a version key whose subscription no checkpoint or lease key names (only a hash of the id is in the key)\n',
      'summary\n',
    ]);
    expect(printed((out) => new TextInspectionReport(out), [[]])).toEqual(['summary\n']);
  });

  it('in JSON, prints one array a batch at a time, the same text as the whole array at once', () => {
    const whole = `${JSON.stringify(judged.map(inspectionJsonRow), null, 2)}\n`;
    const writes = printed((out) => new JsonInspectionReport(out), [judged.slice(0, 2), [], judged.slice(2)]);
    expect(writes).toHaveLength(3);
    expect(writes.join('')).toBe(whole);
    expect(printed((out) => new JsonInspectionReport(out), [])).toEqual(['[]\n']);
  });

  it('as Prometheus text, counts each flag over every batch, 0 for a flag none raised, and names no subscription', () => {
    expect(printed((out) => new PrometheusInspectionReport(out), [[orders], [spaced, orphan]])).toEqual([
      [
        '# HELP checkpoint_fencing_inspect_subscriptions Subscriptions inspect read.',
        '# TYPE checkpoint_fencing_inspect_subscriptions gauge',
        'checkpoint_fencing_inspect_subscriptions 3',
        '# HELP checkpoint_fencing_inspect_flagged Subscriptions with each health flag raised (doc/operations.md).',
        '# TYPE checkpoint_fencing_inspect_flagged gauge',
        'checkpoint_fencing_inspect_flagged{flag="stuck"} 1',
        'checkpoint_fencing_inspect_flagged{flag="unfenceable"} 0',
        'checkpoint_fencing_inspect_flagged{flag="stray-version"} 1',
        'checkpoint_fencing_inspect_flagged{flag="no-version"} 0',
        'checkpoint_fencing_inspect_flagged{flag="expired-lease"} 1',
        'checkpoint_fencing_inspect_flagged{flag="unowned"} 0',
        '# HELP checkpoint_fencing_inspect_problems Subscriptions holding a value no storage or strategy writes.',
        '# TYPE checkpoint_fencing_inspect_problems gauge',
        'checkpoint_fencing_inspect_problems 0',
        '# HELP checkpoint_fencing_inspect_live_leases Subscriptions whose lease is held and not expired.',
        '# TYPE checkpoint_fencing_inspect_live_leases gauge',
        'checkpoint_fencing_inspect_live_leases 1',
        '',
      ].join('\n'),
    ]);
  });
});
