import type { Checkpoint } from '../checkpoint.js';
import type { FencingToken } from '../fencing-token.js';

/**
 * What a handler gets with each event, the same object for every event of one run (one grant of the lease). See
 * doc/leases.md, "The handler context".
 */
export interface HandlerContext {
  /**
   * The fencing token this delivery runs under: stamp your own writes to other resources with it
   * (`notOlderThan(fencingToken)`, `UPDATE … WHERE version <= $token`) so that a node that lost the lease cannot
   * overwrite a newer holder's work. `undefined` for a subscription without a strategy, which delivers unfenced.
   */
  readonly fencingToken: FencingToken | undefined;
  /**
   * Aborts as soon as this run stops: this node lost the lease or gave it up (after a refused write), the subscription
   * is paused or shut down, or the run ended otherwise. Pass it on to slow work so that it stops promptly; its
   * `reason` is an `AbortError` `DOMException` that says which.
   */
  readonly signal: AbortSignal;
  /**
   * Writes the pending position now, fenced with `fencingToken`: the position of the last event whose handler has
   * returned (not the event being handled), after any write already under way. Resolves to the checkpoint it wrote,
   * or `undefined` when nothing was pending; either way everything handled before the call is then stored. Rejects
   * with `CheckpointWriteConditionNotFulfilledError` when the write is refused (the run then ends as after any
   * refusal), and with an `Error` when the run stopped without the lease still being this node's, so that the
   * pending position was not written and will be delivered again. A bound function: `const { saveCheckpointNow } =
   * context` works, and strict lint setups (`unbound-method`) accept it.
   */
  readonly saveCheckpointNow: () => Promise<Checkpoint | undefined>;
}
