import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignPartitions, type AssignmentMember } from '../../../runtime/partitions/index.js';

const partitionCounts = fc.constantFrom(1, 2, 4, 8, 16, 32, 64, 128, 256);
const nodeIds = (min: number, max: number): fc.Arbitrary<string[]> =>
  fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: min, maxLength: max });

function ownedBy(target: readonly (string | undefined)[], nodeId: string): number[] {
  return target.flatMap((owner, partition) => (owner === nodeId ? [partition] : []));
}

/** A view of `nodes`, each holding what `holding` gives it: a partition in hand-over is held by nobody. */
function held(holding: readonly (string | undefined)[], nodes: readonly string[]): AssignmentMember[] {
  return nodes.map((nodeId) => ({ nodeId, owned: ownedBy(holding, nodeId) }));
}

function without(nodes: readonly string[], nodeId: string): string[] {
  return nodes.filter((other) => other !== nodeId);
}

/** Membership changes: the pool's node at a position joins when it is not live, else leaves; and how far each got. */
const changes = fc.array(fc.tuple(fc.nat(), fc.infiniteStream(fc.constantFrom('pending', 'released', 'taken'))), {
  maxLength: 10,
});

/**
 * The live members and what each holds after the pool's first node started alone and `history` happened: each change
 * done in full (`settled`) or each of its moves not started, released or taken (`midway`), and a leaver's partitions
 * unowned until taken. A change that would leave nobody is skipped.
 */
function replay(
  partitions: number,
  pool: readonly string[],
  history: readonly (readonly [number, fc.Stream<string>])[],
  progress: 'settled' | 'midway',
): { live: string[]; holding: (string | undefined)[] } {
  let live = pool.slice(0, 1);
  let holding: (string | undefined)[] = assignPartitions(partitions, held([], live));
  for (const [pick, steps] of history) {
    const nodeId = pool[pick % pool.length] ?? '';
    if (live.length === 1 && live[0] === nodeId) {
      continue;
    }
    live = live.includes(nodeId) ? without(live, nodeId) : [...live, nodeId];
    const target = assignPartitions(partitions, held(holding, live));
    holding = holding.map((owner, partition) => {
      const step = progress === 'settled' || owner === target[partition] ? 'taken' : (steps.next().value as string);
      return step === 'taken'
        ? target[partition]
        : step === 'released' || !live.includes(owner ?? '')
          ? undefined
          : owner;
    });
  }
  return { live, holding };
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
        const target = assignPartitions(partitions, held([], nodes));
        expect(assignPartitions(partitions, held(target, nodes))).toEqual(target);
      }),
      { numRuns: 300 },
    );
  });

  it('after any history of settled joins and leaves, one join moves partitions only to the new member, at most ⌈P/N⌉', () => {
    fc.assert(
      fc.property(partitionCounts, nodeIds(2, 16), changes, fc.nat(), (partitions, pool, history, pick) => {
        const { live, holding } = replay(partitions, pool, history, 'settled');
        const absent = pool.filter((nodeId) => !live.includes(nodeId));
        fc.pre(absent.length > 0);
        const joining = absent[pick % absent.length] ?? '';
        const before = assignPartitions(partitions, held(holding, live));
        const after = assignPartitions(partitions, held(holding, [...live, joining]));
        expect(before).toEqual(holding);
        const moves = moved(before, after);
        expect(moves.every((partition) => after[partition] === joining)).toBe(true);
        expect(moves.length).toBeLessThanOrEqual(Math.ceil(partitions / (live.length + 1)));
      }),
      { numRuns: 500 },
    );
  });

  it('after any history of settled joins and leaves, one leave moves only the leaver’s partitions, at most ⌈P/N⌉', () => {
    fc.assert(
      fc.property(partitionCounts, nodeIds(2, 16), changes, fc.nat(), (partitions, pool, history, pick) => {
        const { live, holding } = replay(partitions, pool, history, 'settled');
        fc.pre(live.length >= 2);
        const leaving = live[pick % live.length] ?? '';
        const before = assignPartitions(partitions, held(holding, live));
        const after = assignPartitions(partitions, held(holding, without(live, leaving)));
        expect(before).toEqual(holding);
        const moves = moved(before, after);
        expect(moves.every((partition) => before[partition] === leaving)).toBe(true);
        expect(moves.length).toBeLessThanOrEqual(Math.ceil(partitions / live.length));
      }),
      { numRuns: 500 },
    );
  });

  it('mid-rebalance, a join newly pauses at most the newcomer’s count of running partitions, and a leave none', () => {
    fc.assert(
      fc.property(partitionCounts, nodeIds(2, 16), changes, fc.nat(), (partitions, pool, history, pick) => {
        const { live, holding } = replay(partitions, pool, history, 'midway');
        const change = pool[pick % pool.length] ?? '';
        fc.pre(live.length >= 2 || !live.includes(change));
        const next = live.includes(change) ? without(live, change) : [...live, change];
        const before = assignPartitions(partitions, held(holding, live));
        const after = assignPartitions(partitions, held(holding, next));
        // Newly paused: running on a member that stays, kept there by the rebalance under way, moved by this change.
        const paused = holding.filter(
          (owner, partition) =>
            owner !== undefined && owner !== change && before[partition] === owner && after[partition] !== owner,
        );
        const share = live.includes(change) ? 0 : after.filter((owner) => owner === change).length;
        expect(paused.length).toBeLessThanOrEqual(share);
      }),
      { numRuns: 500 },
    );
  });

  it('mid-rebalance, a join may send a running partition between two old members instead of one already on its way', () => {
    // c joined and waits for partition 1 from a, which has not released it yet; then d joins. a now gives up 1 and 2,
    // and the greedy gives 2 to c and 1 to d: 2 moves between old members, as many pause as with 1 to c and 2 to d.
    // The target cannot be "only to d" here (ADR 1201): a releasing 2 first makes the view of a second history.
    const view = { a: [1, 2, 3], b: [0], c: [] };
    const members = (holdings: Record<string, number[]>): AssignmentMember[] =>
      Object.entries(holdings).map(([nodeId, owned]) => ({ nodeId, owned }));
    expect(assignPartitions(4, members(view))).toEqual(['b', 'c', 'a', 'a']);
    expect(assignPartitions(4, members({ ...view, d: [] }))).toEqual(['b', 'd', 'c', 'a']);
    // The second history: 2 was unowned (its holder left) and on its way to c; d's join sends only 1 to d.
    expect(assignPartitions(4, members({ ...view, a: [1, 3] }))).toEqual(['b', 'a', 'c', 'a']);
    expect(assignPartitions(4, members({ ...view, a: [1, 3], d: [] }))).toEqual(['b', 'd', 'c', 'a']);
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
          const before = assignPartitions(partitions, held([], join ? others : nodes));
          const live = join ? nodes : others;
          const start = held(before, live);
          const target = assignPartitions(partitions, start);
          // Each move is in one of three states: not started, given up by the old holder, taken by the new one.
          const now = before.map((owner, partition) => {
            const step = owner === target[partition] ? 'pending' : (progress.next().value as string);
            return step === 'taken' ? target[partition] : step === 'released' ? undefined : owner;
          });
          expect(assignPartitions(partitions, held(now, live))).toEqual(target);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('spreads a fresh start over every member: bounded-load rendezvous', () => {
    const target = assignPartitions(64, held([], ['a', 'b', 'c']));
    expect(counts(target, ['a', 'b', 'c']).sort()).toEqual([21, 21, 22]);
  });

  it('refuses no members and a node id given twice', () => {
    expect(() => assignPartitions(8, [])).toThrow(RangeError);
    expect(() => assignPartitions(8, held([], ['a', 'a']))).toThrow(RangeError);
  });
});
