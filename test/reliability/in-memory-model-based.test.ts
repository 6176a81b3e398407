import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CheckpointWriteConditionNotFulfilledError,
  InMemoryCheckpointStorage,
  type CheckpointStorage,
  type CheckpointWriteCondition as Condition,
} from '../../runtime/index.js';
import { conditionHolds, stateAfterSave, type CheckpointState } from '../support/linearizability/index.js';
import { concurrentModelProperty } from './model-based/run-concurrent-model.js';

/**
 * A storage that checks the condition, yields, then writes: the read-then-write from Node the design forbids.
 * The property must catch it, or it proves nothing about the storages that pass.
 */
class CheckThenWriteStorage implements CheckpointStorage {
  readonly #entries = new Map<string, CheckpointState>();

  constructor(readonly yieldBetweenCheckAndWrite: () => Promise<void>) {}

  async read(subscriptionId: string): Promise<string | undefined> {
    return this.#entries.get(subscriptionId)?.checkpoint;
  }

  async writeVersion(subscriptionId: string): Promise<bigint | undefined> {
    return this.#entries.get(subscriptionId)?.version;
  }

  async delete(subscriptionId: string): Promise<void> {
    this.#entries.delete(subscriptionId);
  }

  async save(subscriptionId: string, checkpoint: string, condition: Condition): Promise<string> {
    const seen = this.#entries.get(subscriptionId);
    if (!conditionHolds(condition, seen)) {
      throw new CheckpointWriteConditionNotFulfilledError(subscriptionId, condition, seen?.version);
    }
    await this.yieldBetweenCheckAndWrite();
    this.#entries.set(subscriptionId, stateAfterSave(checkpoint, condition, this.#entries.get(subscriptionId)));
    return checkpoint;
  }

  evaluatesWriteConditions(): boolean {
    return true;
  }
}

describe('model-based interleavings: InMemoryCheckpointStorage', () => {
  it('every scheduled interleaving of overlapping calls is linearizable', async () => {
    await fc.assert(
      concurrentModelProperty({
        createStorages: () => [new InMemoryCheckpointStorage()],
        subscriptionIds: ['orders', 'payments'],
      }),
      { numRuns: 150 },
    );
    // Many runs: a second alone, more on a loaded two-core machine.
  }, 60_000);

  it('catches a check-then-write storage and reports the interleaving that broke it', async () => {
    const result = await fc.check(
      concurrentModelProperty({
        createStorages: (scheduler) => [
          new CheckThenWriteStorage(() => scheduler.schedule(Promise.resolve(), 'gap between check and write')),
        ],
        subscriptionIds: ['orders'],
        maxCommands: 10,
      }),
      { numRuns: 300, seed: 42 },
    );
    expect(result.failed).toBe(true);
    expect(String(result.errorInstance)).toMatch(
      /Subscription "orders" is not linearizable: after the longest valid order/,
    );
    const [scheduler, commands] = result.counterexample ?? [];
    // The scheduler's log is the interleaving: which call reached the store, and which gap ran, in what order.
    const log = (scheduler?.report() ?? []).map(({ label, status }) => `${label} ${status}`);
    expect(log).toContain('gap between check and write resolved');
    expect(log.filter((line) => /^p\d+ save\(.*\) returns resolved$/.test(line)).length).toBeGreaterThanOrEqual(2);
    expect([...(commands ?? [])].length).toBeLessThanOrEqual(10);
  }, 60_000);
});
