import type { Checkpoint } from '../checkpoint.js';
import type { ResolvedCheckpointPolicy } from './checkpoint-policy.js';

/** What a {@link CheckpointBatch} needs from the run it belongs to. */
export interface CheckpointBatchOptions {
  readonly policy: ResolvedCheckpointPolicy;
  /** Writes one position, stamped with the run's token. */
  readonly write: (position: Checkpoint) => Promise<unknown>;
  /** Whether the lease is still the run's; asked before a write once the run has stopped. */
  readonly stillHeld: () => boolean;
  /** Told, synchronously, about the first write that fails; no write is sent after it. */
  readonly onFailure: (error: unknown) => void;
  /** The error for a pending position that can no longer be written. */
  readonly notWritten: (position: Checkpoint) => Error;
}

/**
 * The positions one run has handled and not stored yet, and the writes that store them. Writes go out one at a time,
 * in order: the fence accepts every write of one token alike, so two of them landing out of order would move the
 * checkpoint backward. While the run is open, its policy decides when to write; once the run has stopped, a
 * pending position is written only while the lease is still the run's, and once it is closed, never.
 */
export class CheckpointBatch {
  readonly #options: CheckpointBatchOptions;
  #pending: Checkpoint | undefined;
  #count = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #unanswered = 0;
  #failure: { readonly error: unknown } | undefined;
  #phase: 'open' | 'stopped' | 'closed' = 'open';

  constructor(options: CheckpointBatchOptions) {
    this.#options = options;
  }

  /** The failure of the first write that failed, if one did. */
  get failure(): { readonly error: unknown } | undefined {
    return this.#failure;
  }

  /**
   * Records the position of an event whose handler returned. Resolves once it is written when the policy's event
   * count is reached; otherwise at once, starting the policy's timer if none runs. Rejects with a write's failure.
   */
  async handled(position: Checkpoint): Promise<void> {
    this.#throwIfFailed();
    this.#pending = position;
    this.#count += 1;
    if (this.#phase !== 'open') {
      return;
    }
    const { events, ms } = this.#options.policy;
    if (this.#count >= events) {
      await this.#enqueueWrite('policy');
    } else if (ms !== undefined && this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        // A failure reaches the run through onFailure; nobody awaits this write.
        this.#enqueueWrite('policy').catch(() => undefined);
      }, ms);
    }
  }

  /** Writes the pending position after every write queued before it; resolves to it, or `undefined` when none was pending. */
  flush(): Promise<Checkpoint | undefined> {
    return this.#enqueueWrite('asked');
  }

  /** The run stopped: the timer is cancelled, and a pending position is written from now on only while the lease is held. */
  stop(): void {
    this.#cancelTimer();
    if (this.#phase === 'open') {
      this.#phase = 'stopped';
    }
  }

  /**
   * The run's last step: stops, writes the pending position if no write failed and the lease is still held, then
   * closes. Rejects with the failure of that write.
   */
  async finish(): Promise<void> {
    this.stop();
    try {
      if (this.#failure === undefined && this.#options.stillHeld()) {
        await this.#enqueueWrite('policy');
      }
    } finally {
      this.#phase = 'closed';
    }
  }

  /** Sends no write from now on, whatever is pending. Answers whether a write already sent is still unanswered. */
  close(): boolean {
    this.#cancelTimer();
    this.#phase = 'closed';
    return this.#unanswered > 0;
  }

  /**
   * Queues a write of the pending position behind the writes before it. One the policy asked for, found stopped by
   * the time its turn comes without the lease still the run's, writes nothing and resolves: the run ends for that
   * reason already, and the position is delivered again. Only an explicit flush rejects then, since its caller asked
   * for this position to be stored.
   */
  #enqueueWrite(why: 'policy' | 'asked'): Promise<Checkpoint | undefined> {
    const next = this.#queue.then(() => this.#writePending(why));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #writePending(why: 'policy' | 'asked'): Promise<Checkpoint | undefined> {
    this.#throwIfFailed();
    const position = this.#pending;
    if (position === undefined) {
      return undefined;
    }
    if (this.#phase === 'closed' || (this.#phase === 'stopped' && !this.#options.stillHeld())) {
      if (why === 'policy') {
        return undefined;
      }
      throw this.#options.notWritten(position);
    }
    this.#pending = undefined;
    this.#count = 0;
    this.#cancelTimer();
    this.#unanswered += 1;
    try {
      await this.#options.write(position);
      return position;
    } catch (error) {
      if (this.#failure === undefined) {
        this.#failure = { error };
        this.#options.onFailure(error);
      }
      throw error;
    } finally {
      this.#unanswered -= 1;
    }
  }

  #throwIfFailed(): void {
    if (this.#failure !== undefined) {
      throw this.#failure.error;
    }
  }

  #cancelTimer(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }
}
