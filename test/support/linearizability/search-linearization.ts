import { stateKey, statesAfter, type CheckpointState } from './checkpoint-spec.js';
import type { RecordedOperation, SubscriptionHistory } from './partition-by-subscription.js';

/** The outcome of searching one subscription's history for a linearization. */
export type SearchResult =
  | {
      readonly verdict: 'linearizable';
      /** One valid order, as indexes into the history's operations, with the state each one left behind. */
      readonly witness: readonly { readonly operation: number; readonly state: CheckpointState }[];
      readonly steps: number;
    }
  | {
      readonly verdict: 'not-linearizable';
      /** The longest prefix of operations that could be put in order, and the state it left behind. */
      readonly linearizedPrefix: number;
      readonly stateAfterPrefix: CheckpointState;
      /** An operation that had to take effect before it returned but could not from any state reachable so far. */
      readonly stuckOperation: RecordedOperation;
      readonly steps: number;
    }
  | { readonly verdict: 'inconclusive'; readonly steps: number };

interface Entry {
  readonly kind: 'call' | 'return';
  readonly operation: number;
  /** The return entry of a call, so lifting a call also lifts its return. */
  match: Entry | undefined;
  previous: Entry | undefined;
  next: Entry | undefined;
}

interface Frame {
  readonly call: Entry;
  readonly before: CheckpointState;
  readonly candidate: number;
  readonly after: CheckpointState;
}

/**
 * Wing & Gong's search with Lowe's memoisation: walk the calls in real-time order, tentatively linearize one whose
 * observed outcome the spec allows, and backtrack at a return whose call was never linearized. A (set of linearized
 * operations, state) pair already explored is never explored again, which turns the exponential search into one
 * bounded by the distinct configurations, small when few operations overlap.
 */
export function searchLinearization(history: SubscriptionHistory, maxSteps: number): SearchResult {
  const head = buildEntries(history);
  const operationCount = history.operations.length;
  const linearized = new Uint32Array(Math.ceil(operationCount / 32));
  const visited = new Set<string>();
  const stack: Frame[] = [];
  let state: CheckpointState = undefined;
  let entry = head.next;
  let firstCandidate = 0;
  let steps = 0;
  let deepest: { prefix: number; state: CheckpointState; stuck: number } | undefined;

  while (head.next !== undefined) {
    steps += 1;
    if (steps > maxSteps) {
      return { verdict: 'inconclusive', steps };
    }
    if (entry === undefined) {
      throw new Error(
        'Linearizability search walked past the last entry: a return entry is missing; this is a bug in the checker.',
      );
    }
    if (entry.kind === 'call') {
      const recorded = operationAt(history, entry.operation);
      const candidates = statesAfter(recorded.operation, recorded.completion, state);
      let applied = false;
      for (let candidate = firstCandidate; candidate < candidates.length; candidate += 1) {
        const after = candidates[candidate];
        setBit(linearized, entry.operation, true);
        const key = `${configurationKey(linearized)}#${stateKey(after)}`;
        if (visited.has(key)) {
          setBit(linearized, entry.operation, false);
          continue;
        }
        visited.add(key);
        stack.push({ call: entry, before: state, candidate, after });
        state = after;
        lift(entry);
        entry = head.next;
        applied = true;
        break;
      }
      firstCandidate = 0;
      if (!applied) {
        entry = entry.next;
      }
      continue;
    }
    if (deepest === undefined || stack.length > deepest.prefix) {
      deepest = { prefix: stack.length, state, stuck: entry.operation };
    }
    const frame = stack.pop();
    if (frame === undefined) {
      return {
        verdict: 'not-linearizable',
        linearizedPrefix: deepest.prefix,
        stateAfterPrefix: deepest.state,
        stuckOperation: operationAt(history, deepest.stuck),
        steps,
      };
    }
    state = frame.before;
    setBit(linearized, frame.call.operation, false);
    unlift(frame.call);
    entry = frame.call;
    firstCandidate = frame.candidate + 1;
  }
  return {
    verdict: 'linearizable',
    witness: stack.map((frame) => ({ operation: frame.call.operation, state: frame.after })),
    steps,
  };
}

function buildEntries(history: SubscriptionHistory): Entry {
  const head: Entry = { kind: 'call', operation: -1, match: undefined, previous: undefined, next: undefined };
  const calls = new Map<number, Entry>();
  let last = head;
  for (const boundary of history.boundaries) {
    const entry: Entry = {
      kind: boundary.kind,
      operation: boundary.operation,
      match: undefined,
      previous: last,
      next: undefined,
    };
    if (boundary.kind === 'call') {
      calls.set(boundary.operation, entry);
    } else {
      const call = calls.get(boundary.operation);
      if (call === undefined) {
        throw new Error(
          `Operation ${boundary.operation} returns before it is called; partitionBySubscription() orders boundaries, use it.`,
        );
      }
      call.match = entry;
    }
    last.next = entry;
    last = entry;
  }
  return head;
}

function lift(call: Entry): void {
  detach(call);
  if (call.match !== undefined) {
    detach(call.match);
  }
}

function unlift(call: Entry): void {
  // Reattach in reverse order of lift so each entry's neighbours are the ones it had.
  if (call.match !== undefined) {
    attach(call.match);
  }
  attach(call);
}

function detach(entry: Entry): void {
  if (entry.previous !== undefined) {
    entry.previous.next = entry.next;
  }
  if (entry.next !== undefined) {
    entry.next.previous = entry.previous;
  }
}

function attach(entry: Entry): void {
  if (entry.previous !== undefined) {
    entry.previous.next = entry;
  }
  if (entry.next !== undefined) {
    entry.next.previous = entry;
  }
}

/**
 * The linearized set as a short string: operations are numbered in call order and nearly all below the first
 * unlinearized one are done, so only the words from there to the last set bit are spelled out.
 */
function configurationKey(bits: Uint32Array): string {
  let first = 0;
  while (first < bits.length && bits[first] === 0xffffffff) {
    first += 1;
  }
  let last = bits.length - 1;
  while (last > first && bits[last] === 0) {
    last -= 1;
  }
  return `${first}:${bits.subarray(first, last + 1).join(',')}`;
}

function setBit(bits: Uint32Array, index: number, on: boolean): void {
  const word = index >>> 5;
  const mask = 1 << (index & 31);
  bits[word] = on ? (bits[word] ?? 0) | mask : (bits[word] ?? 0) & ~mask;
}

function operationAt(history: SubscriptionHistory, index: number): RecordedOperation {
  const recorded = history.operations[index];
  if (recorded === undefined) {
    throw new Error(
      `No operation ${index} in the history of ${JSON.stringify(history.subscriptionId)}; this is a bug in the checker.`,
    );
  }
  return recorded;
}
