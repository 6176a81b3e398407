import {
  checkLinearizability,
  type History,
  type LinearizabilityReport,
} from '../../test/support/linearizability/index.js';
import { parseSoakCheckpoint, type SoakCheckpoint } from './soak-checkpoint.js';

/** A stored checkpoint replaced by an earlier position: by a stale token (an anomaly), or by a new holder's fence. */
export interface BackwardMove {
  readonly subscriptionId: string;
  readonly from: SoakCheckpoint;
  readonly to: SoakCheckpoint;
}

/** What one soak history shows. */
export interface SoakAnalysis {
  /** Every recorded storage call: reads, version reads and saves. */
  readonly operations: number;
  readonly accepted: number;
  readonly refused: number;
  /** Calls whose outcome is unknown (timeout, dropped connection, a worker stopped for good). */
  readonly unknown: number;
  readonly linearizability: LinearizabilityReport;
  readonly checkMs: number;
  /** Moves to an older token in the checked order of stored states, or between two reads of one caller: each an anomaly. */
  readonly staleBackwardMoves: readonly BackwardMove[];
  /** A new holder fencing the position it read, after an old holder's last write landed: redelivery, not a lost write. */
  readonly handoverRewinds: readonly BackwardMove[];
  readonly anomalies: number;
}

/** Counts outcomes, checks linearizability, and looks for stored checkpoints that moved backward. */
export function analyseSoakHistory(history: History): SoakAnalysis {
  const counts = countOutcomes(history);
  const started = performance.now();
  const linearizability = checkLinearizability(history, { maxStepsPerSubscription: 20_000_000 });
  const checkMs = performance.now() - started;

  const staleBackwardMoves: BackwardMove[] = [];
  const handoverRewinds: BackwardMove[] = [];
  for (const [subscriptionId, order] of linearizability.witnesses) {
    let previous: SoakCheckpoint | undefined;
    for (const { state } of order) {
      const current = parseSoakCheckpoint(state?.checkpoint);
      if (previous !== undefined && current !== undefined) {
        if (current.token < previous.token) {
          staleBackwardMoves.push({ subscriptionId, from: previous, to: current });
        } else if (current.token > previous.token && current.offset < previous.offset) {
          handoverRewinds.push({ subscriptionId, from: previous, to: current });
        }
      }
      previous = current ?? previous;
    }
  }
  staleBackwardMoves.push(...readRegressions(history));

  const anomalies = linearizability.violations.length + linearizability.inconclusive.length + staleBackwardMoves.length;
  return { ...counts, linearizability, checkMs, staleBackwardMoves, handoverRewinds, anomalies };
}

/** The largest drop in position among `moves`, or undefined when there are none. */
export function largestMove(moves: readonly BackwardMove[]): BackwardMove | undefined {
  let largest: BackwardMove | undefined;
  for (const move of moves) {
    if (largest === undefined || move.from.offset - move.to.offset > largest.from.offset - largest.to.offset) {
      largest = move;
    }
  }
  return largest;
}

function countOutcomes(history: History): Pick<SoakAnalysis, 'operations' | 'accepted' | 'refused' | 'unknown'> {
  const open = new Map<string, 'save' | 'other'>();
  let operations = 0;
  let accepted = 0;
  let refused = 0;
  let unknown = 0;
  for (const event of history) {
    if (event.type === 'invoke') {
      operations += 1;
      open.set(event.process, event.operation.kind === 'save' ? 'save' : 'other');
      continue;
    }
    const kind = open.get(event.process);
    open.delete(event.process);
    if (event.type === 'info') {
      unknown += 1;
    } else if (kind === 'save' && event.type === 'ok') {
      accepted += 1;
    } else if (kind === 'save' && event.type === 'fail' && event.reason === 'refused') {
      refused += 1;
    }
  }
  return { operations, accepted, refused, unknown: unknown + open.size };
}

/**
 * Independent of the model: two successful reads by one caller, one after the other, must never show the token
 * going down, since every write is fenced and the stored version only rises.
 */
function readRegressions(history: History): BackwardMove[] {
  const open = new Map<string, string>();
  const lastRead = new Map<string, SoakCheckpoint>();
  const moves: BackwardMove[] = [];
  for (const event of history) {
    if (event.type === 'invoke') {
      if (event.operation.kind === 'read') {
        open.set(event.process, event.operation.subscriptionId);
      } else {
        open.delete(event.process);
      }
      continue;
    }
    const subscriptionId = open.get(event.process);
    open.delete(event.process);
    if (subscriptionId === undefined || event.type !== 'ok' || typeof event.value !== 'string') {
      continue;
    }
    const key = `${event.process}\u0000${subscriptionId}`;
    const current = parseSoakCheckpoint(event.value);
    const previous = lastRead.get(key);
    if (current !== undefined && previous !== undefined && current.token < previous.token) {
      moves.push({ subscriptionId, from: previous, to: current });
    }
    if (current !== undefined) {
      lastRead.set(key, current);
    }
  }
  return moves;
}
