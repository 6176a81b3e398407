import { describe, expect, it } from 'vitest';
import { JsonInspectionReport } from '../../operator/inspection-report.js';
import {
  judgePartitionedSubscription,
  recordedPartitionCount,
  type RecordedMembership,
} from '../../operator/partitioned-subscription-health.js';
import { PrometheusInspectionReport } from '../../operator/prometheus-inspection-report.js';
import { judgeSubscription, type SubscriptionState } from '../../operator/subscription-health.js';

const membership: RecordedMembership = {
  name: 'orders "eu"\\\n',
  partitions: 4,
  members: [{ nodeId: 'node-a', memberForMs: 5_000, expiresInMs: 9_000, owned: [0] }],
  records: {},
  problems: [],
};

function partition(partition: number, state: Partial<SubscriptionState>): SubscriptionState {
  return {
    id: `${membership.name}/${partition}`,
    checkpoint: undefined,
    storedVersion: undefined,
    lease: undefined,
    tokenCounter: undefined,
    clusterUnaligned: false,
    records: {},
    problems: [],
    ...state,
  };
}

/** Owned by node-a; expired (still recorded, PostgreSQL); released; with a problem. */
const states = [
  partition(0, {
    checkpoint: '41',
    storedVersion: 3n,
    tokenCounter: 3n,
    lease: { holder: 'node-a 6f1c2d3e-9b8a-4c7d-8e6f-5a4b3c2d1e0f/3', token: 3n, expiresInMs: 4_000 },
  }),
  partition(1, {
    tokenCounter: 1n,
    lease: { holder: 'node-b 6f1c2d3e-9b8a-4c7d-8e6f-5a4b3c2d1e0f/1', token: 1n, expiresInMs: -10 },
  }),
  partition(2, { checkpoint: 'cp', storedVersion: 0n, tokenCounter: 0n }),
  partition(3, { problems: ['a key of orders/3 is not a string'] }),
];

describe('judgePartitionedSubscription', () => {
  const group = judgePartitionedSubscription(membership, states);

  it('names the owner of each live lease, and flags every partition without one unowned', () => {
    expect(group.partitions.map(({ partition, owner, flags }) => [partition, owner, flags])).toEqual([
      [0, 'node-a', []],
      [1, undefined, ['expired-lease', 'unowned']],
      [2, undefined, ['expired-lease', 'unowned']],
      // A problem comes first: no flags, as for any subscription.
      [3, undefined, []],
    ]);
    expect(group.unowned).toEqual([1, 2, 3]);
    expect(group.partitions[0]).toMatchObject({ ...judgeSubscription(states[0] ?? partition(0, {})), owner: 'node-a' });
  });

  it('is one element of the JSON array beside the rows, which stays one JSON document', () => {
    const writes: string[] = [];
    const report = new JsonInspectionReport((text) => writes.push(text));
    report.write([judgeSubscription(partition(9, { checkpoint: 'x' }))]);
    report.partitioned(group);
    report.end();
    const parsed = JSON.parse(writes.join('')) as Record<string, unknown>[];
    expect(parsed).toHaveLength(2);
    expect(parsed[1]).toMatchObject({
      partitionedSubscription: membership.name,
      partitions: 4,
      members: membership.members,
      unowned: [1, 2, 3],
      flags: ['unowned'],
      partitionRows: [
        expect.objectContaining({ partition: 0, owner: 'node-a', leaseToken: '3', checkpoint: '41' }),
        expect.objectContaining({ partition: 1, owner: null }),
        expect.objectContaining({ partition: 2, owner: null }),
        expect.objectContaining({ partition: 3, owner: null, problems: ['a key of orders/3 is not a string'] }),
      ],
    });
  });

  it('labels Prometheus samples with the name escaped as the text format escapes it', () => {
    const writes: string[] = [];
    const report = new PrometheusInspectionReport((text) => writes.push(text));
    report.partitioned(group);
    report.end();
    const lines = writes.join('').split('\n');
    expect(lines).toContain('checkpoint_fencing_inspect_partition_members{subscription="orders \\"eu\\"\\\\\\n"} 1');
    expect(lines).toContain(
      'checkpoint_fencing_inspect_partition_owner{subscription="orders \\"eu\\"\\\\\\n",partition="0",owner="node-a"} 1',
    );
    expect(lines).toContain('checkpoint_fencing_inspect_flagged{flag="unowned"} 2');
    expect(lines).toContain(
      'checkpoint_fencing_inspect_partition_checkpoint{subscription="orders \\"eu\\"\\\\\\n",partition="0"} 41',
    );
  });
});

describe('recordedPartitionCount', () => {
  it.each(['1', '64', '4096'])('reads %s', (text) => {
    const problems: string[] = [];
    expect(recordedPartitionCount(text, 'key k', problems)).toBe(Number(text));
    expect(problems).toEqual([]);
  });

  it.each(['0', '3', '064', '8192', '', 'x'])('reports %j as a problem, with no partitions', (text) => {
    const problems: string[] = [];
    expect(recordedPartitionCount(text, 'key k', problems)).toBe(0);
    expect(problems).toEqual([expect.stringMatching(/^key k records ".*" partitions, not a power of two/u)]);
  });
});
