import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCheckpointLoop } from '../../bench/soak/checkpoint-loop.js';
import { analyseSoakHistory, type SoakAnalysis } from '../../bench/soak/soak-analysis.js';
import { StallableLeaseClock } from '../../bench/soak/stallable-lease-clock.js';
import {
  CheckpointWriteCondition,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  type CheckpointStorage,
} from '../../runtime/index.js';
import { HistoryRecorder, RecordingCheckpointStorage } from '../support/linearizability/index.js';

// The soak's workload in one process on fake time: three nodes on InMemoryLeaseStrategy with 300 ms leases share a
// table and a storage, and stall for longer than the lease whenever fast-check says so. Seconds of simulated time
// run in milliseconds, and a failing stall plan shrinks.

const leaseMs = 300;
const nodes = 3;
const subscriptionIds = ['orders', 'payments'];

interface Stall {
  readonly atMs: number;
  readonly node: number;
  readonly ms: number;
}

/** A storage that takes every condition for `any()`: what fencing looks like when a storage silently ignores it. */
class ConditionIgnoringStorage extends InMemoryCheckpointStorage {
  override save(subscriptionId: string, checkpoint: string): Promise<string> {
    return super.save(subscriptionId, checkpoint, CheckpointWriteCondition.any());
  }
}

/** Runs the workload for `runMs` of fake time with `stalls` injected, and analyses the recorded history. */
async function runLeaseFencing(
  stalls: readonly Stall[],
  seed: number,
  runMs: number,
  storage: CheckpointStorage,
): Promise<SoakAnalysis> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  let random = seed >>> 0;
  const next = (): number => {
    random = (Math.imul(random, 1_664_525) + 1_013_904_223) >>> 0;
    return random / 2 ** 32;
  };
  const table = new InMemoryLeaseTable();
  const recorder = new HistoryRecorder();
  const run = { active: true };
  const clocks = Array.from({ length: nodes }, () => new StallableLeaseClock());
  const strategies = clocks.map(
    (clock) => new InMemoryLeaseStrategy({ table, leaseTimeMs: leaseMs, clock, onError: () => undefined }),
  );
  for (const { atMs, node, ms } of stalls) {
    setTimeout(() => clocks[node]?.stall(ms), atMs);
  }
  const loops = strategies.flatMap((strategy, node) =>
    subscriptionIds.map(async (id) => {
      await strategy.register(id, `node-${node}`);
      await runCheckpointLoop(
        {
          subscriberId: `node-${node}`,
          strategy,
          storage: new RecordingCheckpointStorage(storage, recorder, `node-${node}/${id}`),
          clock: clocks[node] ?? new StallableLeaseClock(),
          shouldStop: () => !run.active,
          onWrite: () => undefined,
          random: next,
        },
        id,
      );
    }),
  );
  const observers = subscriptionIds.map(async (id) => {
    const reader = new RecordingCheckpointStorage(storage, recorder, `observer/${id}`);
    while (run.active) {
      await reader.read(id);
      await new Promise((resolve) => setTimeout(resolve, 7));
    }
  });
  await vi.advanceTimersByTimeAsync(runMs);
  run.active = false;
  await vi.advanceTimersByTimeAsync(4 * leaseMs);
  await Promise.all([...loops, ...observers]);
  await Promise.all(strategies.map((strategy) => strategy.shutdown()));
  return analyseSoakHistory(recorder.history());
}

describe('lease fencing on InMemoryLeaseStrategy, the soak workload on fake time', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('refuses the write a stalled holder sends with its old token after another node took over', async () => {
    // node-0 registers first, so it holds both leases with token 0; it stalls for three lease times.
    const analysis = await runLeaseFencing(
      [{ atMs: 500, node: 0, ms: 3 * leaseMs }],
      1,
      3_000,
      new InMemoryCheckpointStorage(),
    );
    expect(analysis.refused).toBeGreaterThanOrEqual(2);
    expect(analysis.linearizability.valid).toBe(true);
    expect(analysis.staleBackwardMoves).toEqual([]);
    expect(analysis.anomalies).toBe(0);
  });

  it('reports the same stall as anomalies on a storage that ignores the condition', async () => {
    const analysis = await runLeaseFencing(
      [{ atMs: 500, node: 0, ms: 3 * leaseMs }],
      1,
      3_000,
      new ConditionIgnoringStorage(),
    );
    expect(analysis.refused).toBe(0);
    expect(analysis.linearizability.valid).toBe(false);
    expect(analysis.staleBackwardMoves.length).toBeGreaterThan(0);
  });

  it('never lets a stale token move a checkpoint backward, whatever the stalls', async () => {
    const stall = fc.record({
      atMs: fc.integer({ min: 0, max: 1_500 }),
      node: fc.integer({ min: 0, max: nodes - 1 }),
      ms: fc.integer({ min: 1, max: 4 * leaseMs }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(stall, { maxLength: 6 }), fc.integer(), async (stalls, seed) => {
        const analysis = await runLeaseFencing(stalls, seed, 2_000, new InMemoryCheckpointStorage());
        vi.useRealTimers();
        expect(analysis.linearizability.violations.map(({ explanation }) => explanation)).toEqual([]);
        expect(analysis.anomalies).toBe(0);
      }),
      { numRuns: 15 },
    );
    // CPU-bound on fake time: a few seconds alone, more on a loaded two-core machine.
  }, 60_000);
});
