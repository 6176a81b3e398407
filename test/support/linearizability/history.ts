import type { CheckpointWriteCondition } from '../../../runtime/index.js';

/** A call on one subscription id, as the sequential checkpoint spec knows it. */
export type CheckpointOperation =
  | { readonly kind: 'read'; readonly subscriptionId: string }
  | { readonly kind: 'writeVersion'; readonly subscriptionId: string }
  | {
      readonly kind: 'save';
      readonly subscriptionId: string;
      readonly checkpoint: string;
      readonly condition: CheckpointWriteCondition;
    }
  | { readonly kind: 'delete'; readonly subscriptionId: string };

/** A process started `operation`. A process has at most one operation in flight, as in Jepsen histories. */
export interface InvokeEvent {
  readonly type: 'invoke';
  readonly process: string;
  readonly operation: CheckpointOperation;
}

/**
 * The operation completed normally: `value` is what `read` / `writeVersion` resolved to; for `save` it means the
 * write was accepted; for `delete` it carries nothing.
 */
export interface OkEvent {
  readonly type: 'ok';
  readonly process: string;
  readonly value?: string | bigint | undefined;
}

/**
 * The operation certainly did not change the store. `refused`: a save's condition did not hold, which the checker
 * verifies (a refusal must be justified by some state during the call). `not-applied`: rejected before reaching the
 * store (a TypeError from argument checks), so the checker drops it.
 */
export interface FailEvent {
  readonly type: 'fail';
  readonly process: string;
  readonly reason: 'refused' | 'not-applied';
}

/** The outcome is unknown (timeout, dropped connection): the operation may or may not have applied, at any later time. */
export interface InfoEvent {
  readonly type: 'info';
  readonly process: string;
}

/** One line of a history. */
export type HistoryEvent = InvokeEvent | OkEvent | FailEvent | InfoEvent;

/** How an operation ended. An invoke with no completion by the end of the history counts as `info`. */
export type Completion = OkEvent | FailEvent | InfoEvent;

/**
 * A history: events in real-time order. An event earlier in the array happened before every later one, so an
 * operation whose completion precedes another's invoke must take effect first.
 */
export type History = readonly HistoryEvent[];
