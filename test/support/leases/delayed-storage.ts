import type { Checkpoint, CheckpointStorage, CheckpointWriteCondition } from '../../../runtime/index.js';

/**
 * `inner`, with every `save` answered only after `delayOf(checkpoint)` milliseconds of (possibly fake) time: a
 * storage on the far side of a network, whose replies to writes sent close together may come back in any order.
 * Counts how many saves were ever in flight at once.
 */
export class DelayedStorage implements CheckpointStorage {
  /** The most saves that were sent and not yet answered at one time. */
  mostInFlight = 0;
  readonly advanceWriteVersion?: (subscriptionId: string, version: bigint) => Promise<void>;
  readonly #inner: CheckpointStorage;
  readonly #delayOf: (checkpoint: Checkpoint) => number;
  #inFlight = 0;

  constructor(inner: CheckpointStorage, delayOf: (checkpoint: Checkpoint) => number) {
    this.#inner = inner;
    this.#delayOf = delayOf;
    const advance = inner.advanceWriteVersion?.bind(inner);
    if (advance !== undefined) {
      this.advanceWriteVersion = advance;
    }
  }

  async save(subscriptionId: string, checkpoint: Checkpoint, condition: CheckpointWriteCondition): Promise<Checkpoint> {
    this.#inFlight += 1;
    this.mostInFlight = Math.max(this.mostInFlight, this.#inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, this.#delayOf(checkpoint)));
      return await this.#inner.save(subscriptionId, checkpoint, condition);
    } finally {
      this.#inFlight -= 1;
    }
  }

  read(subscriptionId: string): Promise<Checkpoint | undefined> {
    return this.#inner.read(subscriptionId);
  }

  writeVersion(subscriptionId: string): Promise<bigint | undefined> {
    return this.#inner.writeVersion(subscriptionId);
  }

  delete(subscriptionId: string): Promise<void> {
    return this.#inner.delete(subscriptionId);
  }

  evaluatesWriteConditions(): boolean {
    return this.#inner.evaluatesWriteConditions?.() ?? false;
  }

  evaluatesWriteConditionsFor(subscriptionId: string): boolean {
    return this.#inner.evaluatesWriteConditionsFor?.(subscriptionId) ?? this.evaluatesWriteConditions();
  }
}
