import fc from 'fast-check';
import type { CheckpointStorage } from '../../../runtime/index.js';
import { HistoryRecorder } from '../../support/linearizability/index.js';
import { assertLinearizable, concurrentCheckpointCommands, type ConcurrentModel, type ConcurrentReal } from './concurrent-checkpoint-commands.js';

/** Options of {@link concurrentModelProperty}. */
export interface ConcurrentModelOptions {
  /** A fresh, empty storage for each run (flush the server, or use fresh ids); a storage under test may yield to `scheduler`. */
  readonly createStorage: (scheduler: fc.Scheduler) => CheckpointStorage | Promise<CheckpointStorage>;
  readonly subscriptionIds: readonly string[];
  readonly maxCommands?: number;
}

/**
 * The property: any sequence of overlapping calls, in any order the scheduler picks, leaves a history the
 * sequential spec explains, checked once every call has returned and final sequential reads have run.
 */
export function concurrentModelProperty(options: ConcurrentModelOptions): fc.IAsyncProperty<[fc.Scheduler, Iterable<fc.AsyncCommand<ConcurrentModel, ConcurrentReal>>]> {
  const commands = fc.commands(concurrentCheckpointCommands(options.subscriptionIds), { maxCommands: options.maxCommands ?? 25 });
  return fc.asyncProperty(fc.scheduler(), commands, async (scheduler, cmds) => {
    const storage = await options.createStorage(scheduler);
    const real: ConcurrentReal = { storage, recorder: new HistoryRecorder(), scheduler, pending: [], barrier: Promise.resolve(), nextProcess: 0 };
    await fc.scheduledModelRun(scheduler, () => ({ model: { inFlight: 0 }, real }), cmds);
    await scheduler.waitFor(Promise.all(real.pending));
    for (const subscriptionId of options.subscriptionIds) {
      await real.recorder.record('final', { kind: 'read', subscriptionId }, () => storage.read(subscriptionId));
      await real.recorder.record('final', { kind: 'writeVersion', subscriptionId }, () => storage.writeVersion(subscriptionId));
    }
    assertLinearizable(real.recorder);
  });
}
