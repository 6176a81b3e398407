import type { Checkpoint } from '../checkpoint.js';
import { quoteText } from '../describe-value.js';
import type { FencedCheckpointWriter } from '../fenced-checkpoint-writer.js';
import type { FencingToken } from '../fencing-token.js';
import { CheckpointBatch } from './checkpoint-batch.js';
import type { ResolvedCheckpointPolicy } from './checkpoint-policy.js';
import type { HandlerContext } from './handler-context.js';

/** Why a run stopped; the text of its signal's reason. */
export type RunStop = 'leaseLost' | 'paused' | 'shutDown' | 'writeFailed' | 'ended';

const stopReasons: Readonly<Record<RunStop, string>> = {
  leaseLost: 'this node no longer holds the lease with this token (it expired, was deleted, or went to another node)',
  paused: 'the subscription was paused',
  shutDown: 'the DurableSubscription is shutting down',
  writeFailed: 'a checkpoint write failed or was refused (after a refusal this node gives the lease up)',
  ended: 'the run ended: its source ended, or a handler, source or storage call failed',
};

/**
 * What a run writes through: a {@link FencedCheckpointWriter} bound to the grant's token, or, for a subscription
 * without a strategy, which delivers alone, `any()` writes and the same start-position pin.
 */
export type RunWriter = Pick<FencedCheckpointWriter, 'save' | 'saveStartPosition'>;

/** What one run is made of. */
export interface DeliveryRunOptions {
  readonly subscriptionId: string;
  /** The token of the grant; `undefined` without a strategy. */
  readonly token: FencingToken | undefined;
  readonly policy: ResolvedCheckpointPolicy;
  /** Stamps every write of the run with `token`. */
  readonly writer: RunWriter;
  /** Whether the strategy still reports `token` for this subscription (always true without a strategy). */
  readonly stillHeld: () => boolean;
}

/**
 * One run of a subscription under one grant: the signal its source and handlers get, the positions it has handled
 * and not stored yet, and the context its handler is called with.
 */
export class DeliveryRun {
  readonly token: FencingToken | undefined;
  readonly writer: RunWriter;
  readonly checkpoints: CheckpointBatch;
  readonly context: HandlerContext;
  /** Fenced and positioned: events are being delivered. */
  started = false;
  readonly #subscriptionId: string;
  readonly #abort = new AbortController();

  constructor(options: DeliveryRunOptions) {
    const { subscriptionId, token, writer } = options;
    this.#subscriptionId = subscriptionId;
    this.token = token;
    this.writer = writer;
    this.checkpoints = new CheckpointBatch({
      policy: options.policy,
      write: (position) => writer.save(subscriptionId, position),
      stillHeld: options.stillHeld,
      onFailure: () => {
        this.stop('writeFailed');
      },
      notWritten: (position) => notWrittenError(subscriptionId, token, position),
    });
    const checkpoints = this.checkpoints;
    this.context = Object.freeze({
      fencingToken: token,
      signal: this.#abort.signal,
      saveCheckpointNow: () => checkpoints.flush(),
    });
  }

  /** Aborts when the run stops; see {@link HandlerContext.signal}. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /**
   * Stops the run for `why`, once: aborts its signal and its checkpoint timer. A pause or a shutdown, which give the
   * lease up only once the run is over, also write the pending position at once, so that a handler still running
   * (past shutdown's 5 s, say) does not hold back what the handlers before it settled. Later calls change nothing.
   */
  stop(why: RunStop): void {
    if (this.#abort.signal.aborted) {
      return;
    }
    this.checkpoints.stop();
    if (why === 'paused' || why === 'shutDown') {
      // A failure is kept in checkpoints.failure and ends the run; nobody awaits this write.
      this.checkpoints.flush().catch(() => undefined);
    }
    this.#abort.abort(
      new DOMException(
        `Delivery of subscription ${quoteText(this.#subscriptionId)}${tokenText(this.token)} stopped: ${stopReasons[why]}.`,
        'AbortError',
      ),
    );
  }
}

function notWrittenError(subscriptionId: string, token: FencingToken | undefined, position: Checkpoint): Error {
  return new Error(
    `Checkpoint ${quoteText(position)} of subscription ${quoteText(subscriptionId)} was not written: the run${tokenText(token)} ` +
      'has stopped and this node no longer holds its lease (or shutdown gave up waiting). The events after the stored ' +
      'checkpoint will be delivered again, here or on the node that holds the lease.',
  );
}

function tokenText(token: FencingToken | undefined): string {
  return token === undefined ? '' : ` under fencing token ${token}`;
}
