import {
  CheckpointWriteConditionNotFulfilledError,
  type Checkpoint,
  type CheckpointStorage,
  type CheckpointWriteCondition,
  type CompetingConsumerStrategy,
} from '../../../runtime/index.js';

/**
 * The calls a subscription made to its storage and its strategy, in one list, in the order they happened: to show
 * that a checkpoint write was answered before the lease was given up. Entries read `save 6 notOlderThan(0)` (sent),
 * `saved 6` or `refused 6` (answered), `unregister`, `release`, `raiseFencingTokenAbove 9`.
 */
export class CallTimeline {
  readonly entries: string[] = [];

  /** Index of the first entry starting with `prefix`; -1 when there is none. */
  first(prefix: string): number {
    return this.entries.findIndex((entry) => entry.startsWith(prefix));
  }

  /** Index of the last entry starting with `prefix`; -1 when there is none. */
  last(prefix: string): number {
    return this.entries.findLastIndex((entry) => entry.startsWith(prefix));
  }

  /** The entries starting with `prefix`. */
  all(prefix: string): string[] {
    return this.entries.filter((entry) => entry.startsWith(prefix));
  }

  /**
   * `inner`, recording every `save` when it is sent and when it is answered. `beforeSave` runs after a save is
   * recorded as sent and before it reaches `inner`: a test can hold a write there, unanswered.
   */
  storage(inner: CheckpointStorage, beforeSave?: (checkpoint: Checkpoint) => Promise<void>): CheckpointStorage {
    const entries = this.entries;
    const recording: CheckpointStorage = {
      read: (subscriptionId) => inner.read(subscriptionId),
      writeVersion: (subscriptionId) => inner.writeVersion(subscriptionId),
      delete: (subscriptionId) => inner.delete(subscriptionId),
      evaluatesWriteConditions: () => inner.evaluatesWriteConditions?.() ?? false,
      save: async (subscriptionId: string, checkpoint: Checkpoint, condition: CheckpointWriteCondition) => {
        entries.push(`save ${checkpoint} ${String(condition)}`);
        try {
          await beforeSave?.(checkpoint);
          const stored = await inner.save(subscriptionId, checkpoint, condition);
          entries.push(`saved ${checkpoint}`);
          return stored;
        } catch (error) {
          entries.push(
            `${error instanceof CheckpointWriteConditionNotFulfilledError ? 'refused' : 'failed'} ${checkpoint}`,
          );
          throw error;
        }
      },
    };
    const advance = inner.advanceWriteVersion?.bind(inner);
    return advance === undefined ? recording : { ...recording, advanceWriteVersion: advance };
  }

  /** `inner`, recording `unregister`, `release` and `raiseFencingTokenAbove` when they are called. */
  strategy(inner: CompetingConsumerStrategy): CompetingConsumerStrategy {
    const entries = this.entries;
    const raise = inner.raiseFencingTokenAbove?.bind(inner);
    return {
      ...(inner.leaseTimeMs === undefined ? {} : { leaseTimeMs: inner.leaseTimeMs }),
      register: (subscriptionId, subscriberId) => inner.register(subscriptionId, subscriberId),
      unregister: (subscriptionId, subscriberId) => {
        entries.push('unregister');
        return inner.unregister(subscriptionId, subscriberId);
      },
      release: (subscriptionId, subscriberId) => {
        entries.push('release');
        return inner.release(subscriptionId, subscriberId);
      },
      hasLock: (subscriptionId, subscriberId) => inner.hasLock(subscriptionId, subscriberId),
      fencingToken: (subscriptionId) => inner.fencingToken(subscriptionId),
      onGranted: (listener) => inner.onGranted(listener),
      onProhibited: (listener) => inner.onProhibited(listener),
      shutdown: () => inner.shutdown(),
      ...(raise === undefined
        ? {}
        : {
            raiseFencingTokenAbove: (subscriptionId: string, version: bigint) => {
              entries.push(`raiseFencingTokenAbove ${version}`);
              return raise(subscriptionId, version);
            },
          }),
    };
  }
}
