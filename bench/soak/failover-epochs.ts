import { CheckpointWriteCondition } from '../../runtime/index.js';
import type {
  CheckpointOperation,
  CheckpointState,
  HistoryEvent,
  LinearizabilityReport,
  TimedHistoryEvent,
} from '../../test/support/linearizability/index.js';
import type { FailoverRecord } from './sentinel-server-faults.js';
import { analyseSoakHistory, type SoakAnalysis } from './soak-analysis.js';
import { parseSoakCheckpoint, type SoakCheckpoint } from './soak-checkpoint.js';

/** An accepted save (its replicas acknowledged it, by the storage's word) that the promoted replica did not have. */
export interface LostWrite {
  readonly subscriptionId: string;
  /** 1 for the first failover of the run. */
  readonly failover: number;
  readonly checkpoint: string;
  readonly snapshot: CheckpointState;
}

/** A subscription a failover took back to an earlier state than its epoch's last (`to` undefined: to nothing). */
export interface FailoverRollback {
  readonly subscriptionId: string;
  readonly failover: number;
  readonly from: SoakCheckpoint;
  readonly to: SoakCheckpoint | undefined;
}

/** What a Sentinel soak's history shows, checked one failover epoch at a time. */
export interface FailoverSoakAnalysis extends SoakAnalysis {
  /** Failovers the history was split at; one epoch more than these. */
  readonly failovers: number;
  /** Accepted saves a failover lost: each an anomaly. */
  readonly lostAcknowledgedWrites: readonly LostWrite[];
  /**
   * Where a failover took a subscription back to an earlier state than its epoch's last: writes that were not
   * reported accepted (CheckpointWriteNotReplicatedError, timeouts), lost with the master. Allowed: that is what
   * "may or may not survive a failover" means; counted, since it is the window waiting for replicas leaves open.
   */
  readonly rollbacks: readonly FailoverRollback[];
  /** Failovers whose replica was already promoted when it was read, so nothing could be checked against it. */
  readonly unreadableSnapshots: number;
  /**
   * Calls the workers on a cut-off master's side made during a partition (`--partition`): they went to that master or
   * failed, so they belong to no epoch and are not checked for linearizability (its readers see its own past).
   */
  readonly cutOffCalls: number;
  /** Saves accepted on a cut-off master's side: each an anomaly, thrown away when it became a replica. */
  readonly acceptedWhileCutOff: readonly {
    readonly subscriptionId: string;
    readonly failover: number;
    readonly checkpoint: string;
  }[];
}

/**
 * Checks a Sentinel soak's history epoch by epoch. Linearizability holds within an epoch: a failover takes the store
 * to whatever the promoted replica held, which may lack writes that readers already saw on the dead master (Redis
 * replicates asynchronously; reads never wait for replicas), so no single sequential history spans it. Across each
 * failover the promise is durability: every save reported accepted in the epoch before must be in the promoted
 * replica's state (read from it after its master died, before its promotion). Each epoch after the first starts
 * from that state, as an accepted save of it. An operation belongs to the epoch its invoke falls in: one invoked
 * before the SIGKILL ran on the old master or nowhere, except a save of unknown outcome, which may also reach the
 * promoted master later and is carried into the next epoch as well.
 */
export function analyseFailoverSoak(
  events: readonly TimedHistoryEvent[],
  failovers: readonly FailoverRecord[],
): FailoverSoakAnalysis {
  const boundaries = [...failovers].sort((a, b) => (a.killedAt < b.killedAt ? -1 : a.killedAt > b.killedAt ? 1 : 0));
  const epochs: HistoryEvent[][] = [[], ...boundaries.map((failover, index) => startingFrom(failover, index + 1))];
  const startOf = epochs.map((epoch) => epoch.length);
  const synthetic = startOf.reduce((sum, length) => sum + length / 2, 0);
  const epochOfOpenCall = new Map<string, number>();
  /** Calls of the cut-off side, by the failover (1 for the first) whose partition they fell in. */
  const cutOff = new Map<number, HistoryEvent[]>();
  for (const { time, event } of events) {
    let epoch: number;
    if (event.type === 'invoke') {
      const partition = boundaries.findIndex(({ killedAt, minority }) =>
        minority === undefined
          ? false
          : killedAt <= time && time < minority.until && minority.workers.includes(event.process.split('/')[0] ?? ''),
      );
      // Negative: on the cut-off side of the partition of failover -epoch.
      epoch = partition >= 0 ? -(partition + 1) : boundaries.filter(({ killedAt }) => killedAt <= time).length;
      epochOfOpenCall.set(event.process, epoch);
    } else {
      epoch = epochOfOpenCall.get(event.process) ?? boundaries.filter(({ killedAt }) => killedAt <= time).length;
      epochOfOpenCall.delete(event.process);
    }
    if (epoch < 0) {
      const calls = cutOff.get(-epoch) ?? [];
      cutOff.set(-epoch, calls);
      calls.push(event);
    } else {
      epochs[epoch]?.push(event);
    }
  }
  // A save whose outcome is unknown may take effect at any later time, after a failover too: a read on the promoted
  // master once saw such a write (in CI; by a command the client still held, or bytes the snapshot missed). Each is
  // carried into the next epoch as an unknown-outcome call made at its start, checked with its own condition there.
  const carried = epochs.map((_, index) => (index === 0 ? [] : unknownSaves(epochs[index - 1] ?? [], index)));
  for (const [index, late] of carried.entries()) {
    epochs[index]?.splice(startOf[index] ?? 0, 0, ...late);
  }
  const added = synthetic + carried.reduce((sum, late) => sum + late.length / 2, 0);
  const acceptedWhileCutOff = [...cutOff].flatMap(([failover, calls]) =>
    acceptedSaves(calls).map(([subscriptionId, checkpoint]) => ({ subscriptionId, failover, checkpoint })),
  );
  const cutOffCalls = [...cutOff.values()].reduce((sum, calls) => sum + calls.length / 2, 0);
  const analyses = epochs.map((epoch) => analyseSoakHistory(epoch));
  const lostAcknowledgedWrites: LostWrite[] = [];
  const rollbacks: FailoverRollback[] = [];
  let unreadableSnapshots = 0;
  for (const [index, failover] of boundaries.entries()) {
    if (!failover.snapshotBeforePromotion) {
      unreadableSnapshots += 1;
      continue;
    }
    for (const [subscriptionId, checkpoint] of acceptedSaves(epochs[index] ?? [])) {
      const snapshot = failover.snapshot.get(subscriptionId);
      if (!reflects(snapshot, checkpoint)) {
        lostAcknowledgedWrites.push({ subscriptionId, failover: index + 1, checkpoint, snapshot });
      }
    }
    for (const [subscriptionId, order] of analyses[index]?.linearizability.witnesses ?? []) {
      const last = parseSoakCheckpoint(order.at(-1)?.state?.checkpoint);
      const after = parseSoakCheckpoint(failover.snapshot.get(subscriptionId)?.checkpoint);
      if (last !== undefined && (after === undefined || isEarlier(after, last))) {
        rollbacks.push({ subscriptionId, failover: index + 1, from: last, to: after });
      }
    }
  }
  const sum = (pick: (analysis: SoakAnalysis) => number): number =>
    analyses.reduce((total, analysis) => total + pick(analysis), 0);
  const linearizability: LinearizabilityReport = {
    valid: analyses.every((analysis) => analysis.linearizability.valid),
    violations: analyses.flatMap((analysis) => analysis.linearizability.violations),
    inconclusive: analyses.flatMap((analysis) => analysis.linearizability.inconclusive),
    // Orders of the last epoch only: across a failover no single order exists.
    witnesses: analyses.at(-1)?.linearizability.witnesses ?? new Map(),
    operationsChecked: sum((analysis) => analysis.linearizability.operationsChecked) - added,
    steps: sum((analysis) => analysis.linearizability.steps),
  };
  return {
    operations: sum((analysis) => analysis.operations) - added,
    accepted: sum((analysis) => analysis.accepted) - synthetic,
    refused: sum((analysis) => analysis.refused),
    unknown: sum((analysis) => analysis.unknown) - (added - synthetic),
    linearizability,
    checkMs: sum((analysis) => analysis.checkMs),
    staleBackwardMoves: analyses.flatMap((analysis) => analysis.staleBackwardMoves),
    handoverRewinds: analyses.flatMap((analysis) => analysis.handoverRewinds),
    anomalies:
      sum((analysis) => analysis.anomalies) +
      lostAcknowledgedWrites.length +
      unreadableSnapshots +
      acceptedWhileCutOff.length,
    failovers: boundaries.length,
    lostAcknowledgedWrites,
    rollbacks,
    unreadableSnapshots,
    cutOffCalls,
    acceptedWhileCutOff,
  };
}

/** The promoted replica's state at the start of epoch `epoch`, as one accepted save per subscription. */
function startingFrom(failover: FailoverRecord, epoch: number): HistoryEvent[] {
  const events: HistoryEvent[] = [];
  for (const [subscriptionId, state] of failover.snapshot) {
    if (state === undefined) {
      continue;
    }
    const process = `failover-${epoch}/${subscriptionId}`;
    const operation: CheckpointOperation = {
      kind: 'save',
      subscriptionId,
      checkpoint: state.checkpoint,
      condition:
        state.version === undefined
          ? CheckpointWriteCondition.any()
          : CheckpointWriteCondition.notOlderThan(state.version),
    };
    events.push({ type: 'invoke', process, operation }, { type: 'ok', process });
  }
  return events;
}

/** The saves of `epoch` with an unknown outcome, as unknown-outcome calls of epoch `into`. */
function unknownSaves(epoch: readonly HistoryEvent[], into: number): HistoryEvent[] {
  return savesOf(epoch)
    .filter(({ ended }) => ended === 'info' || ended === undefined)
    .flatMap(({ process, save }): HistoryEvent[] => [
      { type: 'invoke', process: `late-${into}/${process}`, operation: save },
      { type: 'info', process: `late-${into}/${process}` },
    ]);
}

/** Every save accepted in `epoch`, as [subscription id, checkpoint]. */
function acceptedSaves(epoch: readonly HistoryEvent[]): [string, string][] {
  return savesOf(epoch)
    .filter(({ ended }) => ended === 'ok')
    .map(({ save }) => [save.subscriptionId, save.checkpoint]);
}

/** Each save of `epoch`, its process and how it ended (`undefined`: no completion by the end of the epoch). */
function savesOf(epoch: readonly HistoryEvent[]): {
  readonly process: string;
  readonly save: CheckpointOperation & { readonly kind: 'save' };
  readonly ended: HistoryEvent['type'] | undefined;
}[] {
  const open = new Map<string, CheckpointOperation>();
  const saves: ReturnType<typeof savesOf> = [];
  const add = (
    process: string,
    operation: CheckpointOperation | undefined,
    ended: HistoryEvent['type'] | undefined,
  ) => {
    if (operation?.kind === 'save') {
      saves.push({ process, save: operation, ended });
    }
  };
  for (const event of epoch) {
    if (event.type === 'invoke') {
      open.set(event.process, event.operation);
      continue;
    }
    add(event.process, open.get(event.process), event.type);
    open.delete(event.process);
  }
  for (const [process, operation] of open) {
    add(process, operation, undefined);
  }
  return saves;
}

/**
 * Whether the promoted replica's `snapshot` holds an accepted `checkpoint` or a later one: a newer token, or the same
 * token at the same or a later offset (under one token one holder writes positions in order, and re-fences only what
 * it read back).
 */
function reflects(snapshot: CheckpointState, checkpoint: string): boolean {
  const written = parseSoakCheckpoint(checkpoint);
  const held = parseSoakCheckpoint(snapshot?.checkpoint);
  return written === undefined || (held !== undefined && !isEarlier(held, written));
}

function isEarlier(a: SoakCheckpoint, b: SoakCheckpoint): boolean {
  return a.token < b.token || (a.token === b.token && a.offset < b.offset);
}
