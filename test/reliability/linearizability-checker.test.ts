import { describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  InMemoryCheckpointStorage,
  type CheckpointWriteCondition as Condition,
} from '../../runtime/index.js';
import {
  checkLinearizability,
  HistoryRecorder,
  mergeTimedHistories,
  RecordingCheckpointStorage,
  type CheckpointOperation,
  type HistoryEvent,
} from '../support/linearizability/index.js';

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;

const save = (checkpoint: string, condition: Condition, subscriptionId = 'orders'): CheckpointOperation => ({
  kind: 'save',
  subscriptionId,
  checkpoint,
  condition,
});
const read = (subscriptionId = 'orders'): CheckpointOperation => ({ kind: 'read', subscriptionId });
const writeVersion = (subscriptionId = 'orders'): CheckpointOperation => ({ kind: 'writeVersion', subscriptionId });
const remove = (subscriptionId = 'orders'): CheckpointOperation => ({ kind: 'delete', subscriptionId });

const invoke = (process: string, operation: CheckpointOperation): HistoryEvent => ({
  type: 'invoke',
  process,
  operation,
});
const ok = (process: string, value?: string | bigint): HistoryEvent =>
  value === undefined ? { type: 'ok', process } : { type: 'ok', process, value };
const refused = (process: string): HistoryEvent => ({ type: 'fail', process, reason: 'refused' });
const unknown = (process: string): HistoryEvent => ({ type: 'info', process });

/** Operations that do not overlap: each invoke immediately followed by its completion. */
function sequential(...steps: [string, CheckpointOperation, HistoryEvent][]): HistoryEvent[] {
  return steps.flatMap(([process, operation, completion]) => [invoke(process, operation), completion]);
}

describe('linearizability checker: histories it accepts', () => {
  it('accepts the empty history', () => {
    expect(checkLinearizability([]).valid).toBe(true);
  });

  it('accepts a sequential fenced run and returns its order as the witness', () => {
    const report = checkLinearizability(
      sequential(
        ['a', save('10', notOlderThan(1)), ok('a')],
        ['a', read(), ok('a', '10')],
        ['b', save('20', notOlderThan(2)), ok('b')],
        ['a', save('11', notOlderThan(1)), refused('a')],
        ['b', writeVersion(), ok('b', 2n)],
      ),
    );
    expect(report.valid).toBe(true);
    expect(report.witnesses.get('orders')?.map(({ state }) => state?.checkpoint)).toEqual([
      '10',
      '10',
      '20',
      '20',
      '20',
    ]);
  });

  it('accepts a refusal justified only by a concurrent newer write taking effect first', () => {
    const history = [
      invoke('old', save('5', notOlderThan(3))),
      invoke('new', save('9', notOlderThan(4))),
      ok('new'),
      refused('old'),
    ];
    expect(checkLinearizability(history).valid).toBe(true);
  });

  it('accepts a read of either of two overlapping writes', () => {
    for (const seen of ['x', 'y']) {
      const history = [
        invoke('a', save('x', any())),
        invoke('b', save('y', any())),
        invoke('r', read()),
        ok('r', seen),
        ok('a'),
        ok('b'),
      ];
      expect(checkLinearizability(history).valid, `read of ${seen}`).toBe(true);
    }
  });

  it('compares versions beyond 2**53 exactly', () => {
    const big = 2n ** 53n + 1n;
    const history = sequential(
      ['a', save('1', notOlderThan(big)), ok('a')],
      ['b', save('2', notOlderThan(big - 1n)), refused('b')],
      ['a', writeVersion(), ok('a', big)],
    );
    expect(checkLinearizability(history).valid).toBe(true);
  });

  it('treats any() as keeping the stored version and delete as removing it', () => {
    const history = sequential(
      ['a', save('1', notOlderThan(5)), ok('a')],
      ['a', save('2', any()), ok('a')],
      ['a', writeVersion(), ok('a', 5n)],
      ['b', save('3', notOlderThan(4)), refused('b')],
      ['a', remove(), ok('a')],
      ['a', writeVersion(), ok('a')],
      ['b', save('4', notOlderThan(0)), ok('b')],
      ['b', save('5', ifAbsent()), refused('b')],
    );
    expect(checkLinearizability(history).valid).toBe(true);
  });
});

describe('linearizability checker: unknown outcomes', () => {
  it('lets an unknown save have applied, or not, or later than it was called', () => {
    const applied = [invoke('w', save('x', any())), unknown('w'), ...sequential(['r', read(), ok('r', 'x')])];
    const notApplied = [invoke('w', save('x', any())), unknown('w'), ...sequential(['r', read(), ok('r')])];
    const appliedLate = [
      invoke('w', save('x', any())),
      unknown('w'),
      ...sequential(['r', read(), ok('r')], ['r', read(), ok('r', 'x')]),
    ];
    expect(checkLinearizability(applied).valid).toBe(true);
    expect(checkLinearizability(notApplied).valid).toBe(true);
    expect(checkLinearizability(appliedLate).valid).toBe(true);
  });

  it('counts an invoke with no completion as unknown', () => {
    const history = [invoke('w', save('x', notOlderThan(2))), ...sequential(['r', writeVersion(), ok('r', 2n)])];
    expect(checkLinearizability(history).valid).toBe(true);
  });

  it('rejects an unknown save that was seen and then vanished', () => {
    const history = [
      invoke('w', save('x', any())),
      unknown('w'),
      ...sequential(['r', read(), ok('r', 'x')], ['r', read(), ok('r')]),
    ];
    expect(checkLinearizability(history).valid).toBe(false);
  });

  it('rejects an unknown save seen before it was called', () => {
    const history = [...sequential(['r', read(), ok('r', 'x')]), invoke('w', save('x', any())), unknown('w')];
    expect(checkLinearizability(history).valid).toBe(false);
  });

  it('rejects an unknown stale-token save that is seen to have applied over a newer version', () => {
    const history = [
      ...sequential(['new', save('20', notOlderThan(8)), ok('new')]),
      invoke('old', save('10', notOlderThan(7))),
      unknown('old'),
      ...sequential(['r', read(), ok('r', '10')]),
    ];
    expect(checkLinearizability(history).valid).toBe(false);
  });
});

describe('linearizability checker: known non-linearizable histories it must reject', () => {
  const cases: [string, HistoryEvent[]][] = [
    [
      'a stale read: an acknowledged write is not seen by a later read',
      sequential(['a', save('1', any()), ok('a')], ['b', read(), ok('b')]),
    ],
    [
      'a lost write: a later read returns the value an acknowledged write replaced',
      sequential(['a', save('1', any()), ok('a')], ['a', save('2', any()), ok('a')], ['b', read(), ok('b', '1')]),
    ],
    [
      'a stale token accepted: notOlderThan(3) acknowledged over stored version 5',
      sequential(['new', save('50', notOlderThan(5)), ok('new')], ['old', save('30', notOlderThan(3)), ok('old')]),
    ],
    ['a refusal with nothing stored', sequential(['a', save('1', notOlderThan(3)), refused('a')])],
    [
      'a refused write that changed the checkpoint anyway',
      sequential(
        ['new', save('50', notOlderThan(5)), ok('new')],
        ['old', save('30', notOlderThan(3)), refused('old')],
        ['r', read(), ok('r', '30')],
      ),
    ],
    [
      'two overlapping ifAbsent() writes both accepted',
      [invoke('a', save('1', ifAbsent())), invoke('b', save('2', ifAbsent())), ok('a'), ok('b')],
    ],
    [
      'any() dropping the stored version',
      sequential(
        ['a', save('1', notOlderThan(5)), ok('a')],
        ['a', save('2', any()), ok('a')],
        ['b', writeVersion(), ok('b')],
      ),
    ],
    [
      'a checkpoint still readable after its delete returned',
      sequential(['a', save('1', any()), ok('a')], ['a', remove(), ok('a')], ['b', read(), ok('b', '1')]),
    ],
    ['a value never written', [invoke('a', save('1', any())), invoke('b', read()), ok('b', '2'), ok('a')]],
    [
      'reads that disagree on order: one sees x then y, another y then x, with x and y each written once',
      [
        invoke('wx', save('x', any())),
        invoke('wy', save('y', any())),
        ...sequential(['r1', read(), ok('r1', 'x')], ['r1', read(), ok('r1', 'y')], ['r2', read(), ok('r2', 'x')]),
        ok('wx'),
        ok('wy'),
      ],
    ],
  ];

  for (const [title, history] of cases) {
    it(`rejects ${title}`, () => {
      const report = checkLinearizability(history);
      expect(report.valid).toBe(false);
      expect(report.violations).toHaveLength(1);
      expect(report.violations[0]?.subscriptionId).toBe('orders');
    });
  }

  it('names the subscription id, the stuck operation and the state in its explanation', () => {
    const history = sequential(
      ['new', save('50', notOlderThan(5)), ok('new')],
      ['old', save('30', notOlderThan(3)), ok('old')],
    );
    const [violation] = checkLinearizability(history).violations;
    expect(violation?.stuckOperation.process).toBe('old');
    expect(violation?.explanation).toContain('"orders"');
    expect(violation?.explanation).toContain('old: save("30", notOlderThan(3)) -> ok');
    expect(violation?.explanation).toContain('"50" at version 5');
  });
});

describe('linearizability checker: partitioning and malformed histories', () => {
  it('checks subscription ids apart and reports only the broken one', () => {
    const history = [
      ...sequential(['a', save('1', notOlderThan(2), 'orders'), ok('a')]),
      ...sequential(['b', save('7', notOlderThan(9), 'payments'), ok('b')]),
      ...sequential(['a', read('orders'), ok('a', '1')]),
      ...sequential(['b', read('payments'), ok('b', '1')]),
    ];
    const report = checkLinearizability(history);
    expect(report.violations.map(({ subscriptionId }) => subscriptionId)).toEqual(['payments']);
    expect(report.witnesses.has('orders')).toBe(true);
  });

  it('drops an operation that certainly never reached the store', () => {
    const history: HistoryEvent[] = [
      invoke('a', save('1', any())),
      { type: 'fail', process: 'a', reason: 'not-applied' },
      ...sequential(['b', read(), ok('b')]),
    ];
    expect(checkLinearizability(history).valid).toBe(true);
  });

  it('throws on a completion without an invoke, and on a process invoking twice at once', () => {
    expect(() => checkLinearizability([ok('a')])).toThrow(/has no open invoke/);
    expect(() => checkLinearizability([invoke('a', read()), invoke('a', read())])).toThrow(/still open/);
  });

  it('reports a search that runs out of steps as inconclusive, never as valid', () => {
    const history = sequential(['a', save('1', any()), ok('a')], ['a', read(), ok('a', '1')]);
    const report = checkLinearizability(history, { maxStepsPerSubscription: 1 });
    expect(report.valid).toBe(false);
    expect(report.inconclusive).toEqual(['orders']);
  });
});

describe('linearizability checker: memoisation keeps large histories tractable', () => {
  /** A recorded run of `processes` concurrent clients on one storage, each op delayed by a seeded number of ticks. */
  async function concurrentRun(processes: number, operationsEach: number, seed: number): Promise<HistoryRecorder> {
    const storage = new InMemoryCheckpointStorage();
    let clock = 0n;
    const recorder = new HistoryRecorder(() => (clock += 1n));
    let random = seed;
    const next = (bound: number): number => {
      random = (random * 1_103_515_245 + 12_345) % 2_147_483_648;
      return random % bound;
    };
    const ticks = async (count: number): Promise<void> => {
      for (let tick = 0; tick < count; tick += 1) {
        await Promise.resolve();
      }
    };
    await Promise.all(
      Array.from({ length: processes }, async (_, worker) => {
        for (let step = 0; step < operationsEach; step += 1) {
          const process = `p${worker}`;
          const choice = next(4);
          const checkpoint = `${worker}-${step}`;
          const condition = choice === 0 ? any() : choice === 1 ? ifAbsent() : notOlderThan(next(6));
          const operation: CheckpointOperation = choice === 3 ? read() : save(checkpoint, condition);
          await recorder
            .record(process, operation, async () => {
              await ticks(next(5));
              const value =
                operation.kind === 'read'
                  ? await storage.read('orders')
                  : await storage.save('orders', checkpoint, condition);
              await ticks(next(5));
              return operation.kind === 'read' ? value : undefined;
            })
            .catch(() => undefined);
        }
      }),
    );
    return recorder;
  }

  it('accepts 4000 operations from 8 overlapping clients in a bounded number of steps', async () => {
    const recorder = await concurrentRun(8, 500, 7);
    const report = checkLinearizability(recorder.history());
    expect(report.operationsChecked).toBe(4000);
    expect(report.valid).toBe(true);
    expect(report.steps).toBeLessThan(200_000);
  });

  it('rejects a history with one read falsified at the end, with steps growing linearly in its length', async () => {
    const stepsToReject = async (operationsEach: number): Promise<number> => {
      const recorder = await concurrentRun(4, operationsEach, 11);
      const history = [...recorder.history(), ...sequential(['late', read(), ok('late', 'never-written')])];
      const report = checkLinearizability(history);
      expect(report.valid).toBe(false);
      expect(report.inconclusive).toEqual([]);
      expect(report.violations[0]?.stuckOperation.process).toBe('late');
      return report.steps;
    };
    // Refuting needs every reachable configuration explored: without memoisation that count is exponential in the
    // overlap; with it, doubling the history about doubles the work.
    const half = await stepsToReject(125);
    const full = await stepsToReject(250);
    expect(full).toBeLessThan(3 * half);
    expect(full).toBeLessThan(200_000);
  });

  it('merges histories from several recorders by time, an invoke first on a tie', () => {
    const first = new HistoryRecorder(() => 5n);
    const second = new HistoryRecorder(() => 5n);
    void first.record('a', read(), async () => undefined);
    void second.record('b', read(), async () => undefined);
    const merged = mergeTimedHistories(first.timedEvents(), second.timedEvents());
    expect(merged.map(({ type }) => type)).toEqual(['invoke', 'invoke']);
  });
});

describe('RecordingCheckpointStorage', () => {
  it('records every call as one process, with outcomes the checker reads and conditions that survive structured clone', async () => {
    const recorder = new HistoryRecorder();
    const storage = new RecordingCheckpointStorage(new InMemoryCheckpointStorage(), recorder, 'w');
    await storage.save('orders', '1', notOlderThan(2));
    await expect(storage.save('orders', '0', notOlderThan(1))).rejects.toThrow(/refused/);
    await expect(storage.save('orders', untypedNumber(), any())).rejects.toThrow(TypeError);
    expect(await storage.read('orders')).toBe('1');
    expect(await storage.writeVersion('orders')).toBe(2n);
    await storage.delete('orders');
    const history = structuredClone(recorder.history());
    expect(history.filter(({ type }) => type !== 'invoke')).toEqual([
      { type: 'ok', process: 'w' },
      { type: 'fail', process: 'w', reason: 'refused' },
      { type: 'fail', process: 'w', reason: 'not-applied' },
      { type: 'ok', process: 'w', value: '1' },
      { type: 'ok', process: 'w', value: 2n },
      { type: 'ok', process: 'w' },
    ]);
    expect(history[0]).toEqual({
      type: 'invoke',
      process: 'w',
      operation: save('1', { kind: 'notOlderThan', version: 2n }),
    });
    expect(checkLinearizability(history).valid).toBe(true);
  });
});

/** An untyped caller's checkpoint. */
function untypedNumber(): string {
  return 42 as unknown as string;
}
