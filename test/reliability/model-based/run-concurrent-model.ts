import fc from 'fast-check';
import type { CheckpointStorage } from '../../../runtime/index.js';
import { HistoryRecorder } from '../../support/linearizability/index.js';
import {
  assertLinearizable,
  concurrentCheckpointCommands,
  type ConcurrentModel,
  type ConcurrentReal,
} from './concurrent-checkpoint-commands.js';

/** Options of {@link concurrentModelProperty}. */
export interface ConcurrentModelOptions {
  /**
   * Fresh, empty storages over one store for each run (flush the server first), one per client connection; a storage
   * under test may yield to `scheduler`.
   */
  readonly createStorages: (
    scheduler: fc.Scheduler,
  ) => readonly CheckpointStorage[] | Promise<readonly CheckpointStorage[]>;
  readonly subscriptionIds: readonly string[];
  readonly maxCommands?: number;
}

/**
 * The property: any sequence of overlapping calls, in any order the scheduler picks, leaves a history the
 * sequential spec explains, checked once every call has returned and final sequential reads have run.
 */
export function concurrentModelProperty(
  options: ConcurrentModelOptions,
): fc.IAsyncProperty<[fc.Scheduler, Iterable<fc.AsyncCommand<ConcurrentModel, ConcurrentReal>>]> {
  const commands = fc.commands(concurrentCheckpointCommands(options.subscriptionIds), {
    maxCommands: options.maxCommands ?? 60,
    size: 'medium',
  });
  return fc.asyncProperty(fc.scheduler(), commands, async (scheduler, cmds) => {
    const storages = await options.createStorages(scheduler);
    const [storage] = storages;
    if (storage === undefined) {
      throw new Error('createStorages returned no storage; return at least one.');
    }
    const real: ConcurrentReal = {
      storages,
      recorder: new HistoryRecorder(),
      scheduler,
      pending: [],
      barrier: Promise.resolve(),
      nextProcess: 0,
    };
    await fc.scheduledModelRun(scheduler, () => ({ model: { inFlight: 0 }, real }), cmds);
    await scheduler.waitFor(Promise.all(real.pending));
    for (const subscriptionId of options.subscriptionIds) {
      await real.recorder.record('final', { kind: 'read', subscriptionId }, () => storage.read(subscriptionId));
      await real.recorder.record('final', { kind: 'writeVersion', subscriptionId }, () =>
        storage.writeVersion(subscriptionId),
      );
    }
    assertLinearizable(real.recorder);
  });
}
