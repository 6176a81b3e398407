import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignPartitions, type AssignmentMember } from '../../../runtime/partitions/index.js';

const partitionCounts = fc.constantFrom(1, 2, 4, 8, 16, 32, 64, 128, 256);
const nodeIds = (min: number, max: number): fc.Arbitrary<string[]> =>
  fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: min, maxLength: max });

/** Each member holding exactly what `target` gives it: a view once every hand-over is done. */
function settled(target: readonly string[], nodes: readonly string[]): AssignmentMember[] {
  return nodes.map((nodeId) => ({ nodeId, owned: ownedBy(target, nodeId) }));
}

function ownedBy(target: readonly string[], nodeId: string): number[] {
  return target.flatMap((owner, partition) => (owner === nodeId ? [partition] : []));
}

function counts(target: readonly string[], nodes: readonly string[]): number[] {
  return nodes.map((nodeId) => ownedBy(target, nodeId).length);
}

function moved(before: readonly string[], after: readonly string[]): number[] {
  return before.flatMap((owner, partition) => (owner === after[partition] ? [] : [partition]));
}

describe('assignPartitions (properties)', () => {
  it('gives every partition to a member, and counts per member differ by at most one, whatever each claims', () => {
    fc.assert(
      fc.property(
        partitionCounts,
        nodeIds(1, 24),
        fc.array(fc.array(fc.nat(300), { maxLength: 40 }), { maxLength: 24 }),
        (partitions, nodes, claims) => {
          const members = nodes.map((nodeId, index) => ({ nodeId, owned: claims[index] ?? [] }));
          const target = assignPartitions(partitions, members);
          expect(target).toHaveLength(partitions);
          expect(target.every((owner) => nodes.includes(owner))).toBe(true);
          const perNode = counts(target, nodes);
          expect(Math.max(...perNode) - Math.min(...perNode)).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is deterministic: the order of the members and of their claims does not matter', () => {
    fc.assert(
      fc.property(
        partitionCounts,
        nodeIds(1, 16),
        fc.array(fc.array(fc.nat(255), { maxLength: 30 }), { maxLength: 16 }),
        fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true })),
        (partitions, nodes, claims, randoms) => {
          const members = nodes.map((nodeId, index) => ({ nodeId, owned: claims[index] ?? [] }));
          const shuffle = <T>(items: readonly T[]): T[] =>
            items
              .map((item) => ({ item, key: randoms.next().value as number }))
              .sort((a, b) => a.key - b.key)
              .map(({ item }) => item);
          const reordered = shuffle(members).map(({ nodeId, owned }) => ({ nodeId, owned: shuffle(owned) }));
          expect(assignPartitions(partitions, reordered)).toEqual(assignPartitions(partitions, members));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is a fixed point: once every member holds its target, the target stays', () => {
    fc.assert(
      fc.property(partitionCounts, nodeIds(1, 24), (partitions, nodes) => {
        const target = assignPartitions(partitions, settled([], nodes));
        expect(assignPartitions(partitions, settled(target, nodes))).toEqual(target);
      }),
      { numRuns: 300 },
    );
  });

  it('one join moves only partitions to the new member, at most ⌈P/N⌉ of them (N counting it)', () => {
    fc.assert(
      fc.property(partitionCounts, nodeIds(2, 24), (partitions, nodes) => {
        const [joining = '', ...others] = nodes;
        const before = assignPartitions(partitions, settled([], others));
        const after = assignPartitions(partitions, [...settled(before, others), { nodeId: joining, owned: [] }]);
        const moves = moved(before, after);
        expect(moves.every((partition) => after[partition] === joining)).toBe(true);
        expect(moves.length).toBeLessThanOrEqual(Math.ceil(partitions / nodes.length));
      }),
      { numRuns: 500 },
    );
  });

  it('one leave moves only the leaver’s partitions, at most ⌈P/N⌉ of them (N counting it)', () => {
    fc.assert(
      fc.property(partitionCounts, nodeIds(2, 24), fc.nat(), (partitions, nodes, pick) => {
        const before = assignPartitions(partitions, settled([], nodes));
        const leaving = nodes[pick % nodes.length] ?? '';
        const staying = nodes.filter((nodeId) => nodeId !== leaving);
        const after = assignPartitions(partitions, settled(before, staying));
        const moves = moved(before, after);
        expect(moves.every((partition) => before[partition] === leaving)).toBe(true);
        expect(moves.length).toBeLessThanOrEqual(Math.ceil(partitions / nodes.length));
      }),
      { numRuns: 500 },
    );
  });

  it('a hand-over half done keeps the target: a node that gave a partition up or took it sees the same target', () => {
    fc.assert(
      fc.property(
        partitionCounts,
        nodeIds(2, 16),
        fc.boolean(),
        fc.infiniteStream(fc.constantFrom('pending', 'released', 'taken')),
        (partitions, nodes, join, progress) => {
          const [, ...others] = nodes;
          const before = assignPartitions(partitions, settled([], join ? others : nodes));
          const live = join ? nodes : others;
          const start = settled(before, live);
          const target = assignPartitions(partitions, start);
          // Each move is in one of three states: not started, given up by the old holder, taken by the new one.
          const now = before.map((owner, partition) => {
            const step = owner === target[partition] ? 'pending' : (progress.next().value as string);
            return step === 'taken' ? target[partition] : step === 'released' ? undefined : owner;
          });
          const midway = live.map((nodeId) => ({
            nodeId,
            owned: now.flatMap((owner, partition) => (owner === nodeId ? [partition] : [])),
          }));
          expect(assignPartitions(partitions, midway)).toEqual(target);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('spreads a fresh start over every member: bounded-load rendezvous', () => {
    const target = assignPartitions(64, settled([], ['a', 'b', 'c']));
    expect(counts(target, ['a', 'b', 'c']).sort()).toEqual([21, 21, 22]);
  });

  it('refuses no members and a node id given twice', () => {
    expect(() => assignPartitions(8, [])).toThrow(RangeError);
    expect(() => assignPartitions(8, settled([], ['a', 'a']))).toThrow(RangeError);
  });
});
