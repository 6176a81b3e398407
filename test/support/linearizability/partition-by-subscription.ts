import type { CheckpointOperation, Completion, History } from './history.js';

/** An invoke paired with how it ended; `position` is its invoke's index in the full history, for reports. */
export interface RecordedOperation {
  readonly position: number;
  readonly process: string;
  readonly operation: CheckpointOperation;
  readonly completion: Completion;
}

/** A call or return boundary of the operation at `operation` in {@link SubscriptionHistory.operations}. */
export interface Boundary {
  readonly kind: 'call' | 'return';
  readonly operation: number;
}

/**
 * The part of a history that touches one subscription id. `boundaries` is in real-time order; an operation with an
 * unknown outcome returns after everything else, since it may take effect at any time after its call.
 */
export interface SubscriptionHistory {
  readonly subscriptionId: string;
  readonly operations: readonly RecordedOperation[];
  readonly boundaries: readonly Boundary[];
}

/**
 * Pairs invokes with completions and splits the history by subscription id. Keys never interact in the spec, so
 * each part is checked alone (P-compositionality), which keeps the search small.
 * Drops what cannot constrain a linearization: operations that certainly never reached the store, and reads whose
 * outcome is unknown.
 * @throws Error when the history is malformed: a completion with no open invoke, or a second invoke while one is open.
 */
export function partitionBySubscription(history: History): SubscriptionHistory[] {
  const open = new Map<string, { position: number; operation: CheckpointOperation }>();
  const completed: RecordedOperation[] = [];
  const returnPositions = new Map<RecordedOperation, number>();
  history.forEach((event, position) => {
    if (event.type === 'invoke') {
      if (open.has(event.process)) {
        throw new Error(
          `History event ${position}: process ${JSON.stringify(event.process)} invoked while its previous operation is still open; give each concurrent caller its own process name.`,
        );
      }
      open.set(event.process, { position, operation: event.operation });
      return;
    }
    const invoke = open.get(event.process);
    if (invoke === undefined) {
      throw new Error(
        `History event ${position}: ${event.type} for process ${JSON.stringify(event.process)} has no open invoke; record the invoke before the completion.`,
      );
    }
    open.delete(event.process);
    const recorded = {
      position: invoke.position,
      process: event.process,
      operation: invoke.operation,
      completion: event,
    };
    completed.push(recorded);
    returnPositions.set(recorded, position);
  });
  for (const [process, invoke] of open) {
    completed.push({
      position: invoke.position,
      process,
      operation: invoke.operation,
      completion: { type: 'info', process },
    });
  }

  const bySubscription = new Map<
    string,
    { operations: RecordedOperation[]; boundaries: { at: number; boundary: Boundary }[] }
  >();
  for (const recorded of completed.sort((a, b) => a.position - b.position)) {
    if (!constrains(recorded)) {
      continue;
    }
    const id = recorded.operation.subscriptionId;
    let part = bySubscription.get(id);
    if (part === undefined) {
      part = { operations: [], boundaries: [] };
      bySubscription.set(id, part);
    }
    const index = part.operations.length;
    part.operations.push(recorded);
    part.boundaries.push({ at: recorded.position, boundary: { kind: 'call', operation: index } });
    const returnAt =
      recorded.completion.type === 'info'
        ? Number.POSITIVE_INFINITY
        : (returnPositions.get(recorded) ?? Number.POSITIVE_INFINITY);
    part.boundaries.push({ at: returnAt, boundary: { kind: 'return', operation: index } });
  }

  return [...bySubscription].map(([subscriptionId, part]) => ({
    subscriptionId,
    operations: part.operations,
    // Stable sort: unknown-outcome returns share +Infinity and keep their call order.
    boundaries: part.boundaries.sort((a, b) => (a.at === b.at ? 0 : a.at - b.at)).map(({ boundary }) => boundary),
  }));
}

function constrains(recorded: RecordedOperation): boolean {
  const { completion, operation } = recorded;
  if (completion.type === 'fail' && completion.reason === 'not-applied') {
    return false;
  }
  return !(completion.type === 'info' && (operation.kind === 'read' || operation.kind === 'writeVersion'));
}
