import fc from 'fast-check';
import {
  CheckpointWriteCondition,
  FencedCheckpointWriter,
  NoLeaseHeldError,
  type CheckpointStorage,
  type CheckpointWriteCondition as Condition,
  type FencingTokenSource,
} from '../../../runtime/index.js';
import {
  checkLinearizability,
  HistoryRecorder,
  type CheckpointOperation,
} from '../../support/linearizability/index.js';

/** How many operations may be in flight at once; more overlap makes the checker's work grow fast for little gain. */
const maxInFlight = 5;

/** The model: only what preconditions need. Outcomes are judged by the linearizability checker, not predicted. */
export interface ConcurrentModel {
  inFlight: number;
}

/** The system under test and the record of everything done to it. */
export interface ConcurrentReal {
  /** One storage per client connection; call n goes to `storages[n % length]`, so calls can overtake each other. */
  readonly storages: readonly CheckpointStorage[];
  readonly recorder: HistoryRecorder;
  readonly scheduler: fc.Scheduler;
  /** Every call started so far, settled or not; each resolves once its outcome is recorded. */
  readonly pending: Promise<unknown>[];
  /** Calls started from now on wait for this before they begin: the last {@link Barrier}. */
  barrier: Promise<unknown>;
  nextProcess: number;
}

/**
 * Starts one storage call without waiting for it. The scheduler decides when the call reaches the storage and
 * when its outcome reaches the caller, so fast-check chooses (and shrinks) the interleaving.
 */
class StartOperation implements fc.AsyncCommand<ConcurrentModel, ConcurrentReal> {
  constructor(readonly operation: CheckpointOperation) {}

  check(model: Readonly<ConcurrentModel>): boolean {
    return model.inFlight < maxInFlight;
  }

  async run(model: ConcurrentModel, real: ConcurrentReal): Promise<void> {
    model.inFlight += 1;
    const process = `p${real.nextProcess}`;
    const storage = real.storages[real.nextProcess % real.storages.length];
    real.nextProcess += 1;
    if (storage === undefined) {
      throw new Error('The model-based run was given no storage; createStorages must return at least one.');
    }
    const label = `${process} ${this.toString()}`;
    const call = async (): Promise<unknown> => {
      await real.scheduler.schedule(Promise.resolve(), `${label} reaches the storage`);
      let outcome: { value: unknown } | { error: unknown };
      try {
        outcome = { value: await callStorage(storage, this.operation) };
      } catch (error) {
        outcome = { error };
      }
      const delivered = await real.scheduler.schedule(Promise.resolve(outcome), `${label} returns`);
      if ('error' in delivered) {
        throw delivered.error;
      }
      return delivered.value;
    };
    const barrier = real.barrier;
    real.pending.push(barrier.then(() => real.recorder.record(process, this.operation, call).catch(() => undefined)));
  }

  toString(): string {
    const { operation } = this;
    return operation.kind === 'save'
      ? `save(${JSON.stringify(operation.subscriptionId)}, ${JSON.stringify(operation.checkpoint)}, ${String(operation.condition)})`
      : `${operation.kind}(${JSON.stringify(operation.subscriptionId)})`;
  }
}

/** The checkpoint only {@link WriteWithoutToken} tries to write: a read that returns it is a history no spec explains. */
const writtenWithoutToken = 'no-lease';

/**
 * A node whose token source answers `undefined` (it holds no lease) saves through `FencedCheckpointWriter`, among the
 * other calls: the writer must reject with `NoLeaseHeldError` and send nothing. Not recorded as a storage call, since
 * none is made: had the write gone out, a later read of its checkpoint would leave the history unexplained.
 */
class WriteWithoutToken implements fc.AsyncCommand<ConcurrentModel, ConcurrentReal> {
  constructor(
    readonly subscriptionId: string,
    readonly asynchronous: boolean,
  ) {}

  check(model: Readonly<ConcurrentModel>): boolean {
    return model.inFlight < maxInFlight;
  }

  async run(model: ConcurrentModel, real: ConcurrentReal): Promise<void> {
    model.inFlight += 1;
    const storage = real.storages[real.nextProcess % real.storages.length];
    real.nextProcess += 1;
    if (storage === undefined) {
      throw new Error('The model-based run was given no storage; createStorages must return at least one.');
    }
    const fencingToken: FencingTokenSource = this.asynchronous
      ? async () => Promise.resolve(undefined)
      : () => undefined;
    const writer = new FencedCheckpointWriter(storage, { fencingToken });
    const label = this.toString();
    const outcome = real.barrier.then(async () => {
      await real.scheduler.schedule(Promise.resolve(), `${label} reaches the writer`);
      const error: unknown = await writer.save(this.subscriptionId, writtenWithoutToken).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      if (!(error instanceof NoLeaseHeldError)) {
        throw new Error(
          `${label} should reject with NoLeaseHeldError and send nothing; it ended with ${String(error)}.`,
        );
      }
    });
    // Handled here so the rejection is not reported before the run awaits every pending call, which rethrows it.
    outcome.catch(() => undefined);
    real.pending.push(outcome);
  }

  toString(): string {
    return `saveWithoutToken(${JSON.stringify(this.subscriptionId)}, ${this.asynchronous ? 'async' : 'sync'} source)`;
  }
}

/**
 * Calls started after this one begin only once every earlier call has returned: the history gets phases that are
 * sequential to each other and concurrent within. A command cannot simply await the calls, because the scheduler
 * runs one command to completion before it releases any other scheduled task.
 */
class Barrier implements fc.AsyncCommand<ConcurrentModel, ConcurrentReal> {
  check(model: Readonly<ConcurrentModel>): boolean {
    return model.inFlight > 0;
  }

  async run(model: ConcurrentModel, real: ConcurrentReal): Promise<void> {
    model.inFlight = 0;
    real.barrier = Promise.all(real.pending);
  }

  toString(): string {
    return 'barrier()';
  }
}

/** Throws with the checker's explanation when the recorded history has no linearization. */
export function assertLinearizable(recorder: HistoryRecorder): void {
  const report = checkLinearizability(recorder.history());
  if (!report.valid) {
    const reasons = [
      ...report.violations.map(({ explanation }) => explanation),
      ...report.inconclusive.map((id) => `search ran out of steps for ${id}`),
    ];
    throw new Error(`History is not linearizable:\n${reasons.join('\n')}`);
  }
}

/** Calls the storage method `operation` names. */
export function callStorage(storage: CheckpointStorage, operation: CheckpointOperation): Promise<unknown> {
  switch (operation.kind) {
    case 'read':
      return storage.read(operation.subscriptionId);
    case 'writeVersion':
      return storage.writeVersion(operation.subscriptionId);
    case 'delete':
      return storage.delete(operation.subscriptionId);
    case 'save':
      return storage.save(operation.subscriptionId, operation.checkpoint, operation.condition);
  }
}

/**
 * The command set every storage runs: saves under each condition with a few checkpoints and tokens (few, so that
 * writes collide), reads, version reads, deletes, a fenced writer whose token source answers `undefined`, and
 * barriers between phases of overlapping calls.
 */
export function concurrentCheckpointCommands(
  subscriptionIds: readonly string[],
): fc.Arbitrary<fc.AsyncCommand<ConcurrentModel, ConcurrentReal>>[] {
  const id = fc.constantFrom(...subscriptionIds);
  const condition: fc.Arbitrary<Condition> = fc.oneof(
    { weight: 1, arbitrary: fc.constant(CheckpointWriteCondition.any()) },
    { weight: 1, arbitrary: fc.constant(CheckpointWriteCondition.ifAbsent()) },
    {
      weight: 4,
      arbitrary: fc.integer({ min: 0, max: 4 }).map((token) => CheckpointWriteCondition.notOlderThan(token)),
    },
  );
  const checkpoint = fc.constantFrom('a', 'b', 'c', 'd');
  return [
    fc
      .tuple(id, checkpoint, condition)
      .map(
        ([subscriptionId, cp, cond]) =>
          new StartOperation({ kind: 'save', subscriptionId, checkpoint: cp, condition: cond }),
      ),
    fc
      .tuple(id, fc.constantFrom('read', 'writeVersion'))
      .map(([subscriptionId, kind]) => new StartOperation({ kind, subscriptionId })),
    id.map((subscriptionId) => new StartOperation({ kind: 'delete', subscriptionId })),
    fc
      .tuple(id, fc.boolean())
      .map(([subscriptionId, asynchronous]) => new WriteWithoutToken(subscriptionId, asynchronous)),
    fc.constant(new Barrier()),
  ];
}
