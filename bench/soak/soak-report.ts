import type { FaultKind } from './fault-injector.js';
import { largestMove, type BackwardMove, type SoakAnalysis } from './soak-analysis.js';
import type { SoakOptions } from './soak-options.js';

/** Everything the soak prints at the end. */
export interface SoakReportInput {
  readonly options: SoakOptions;
  readonly elapsedSeconds: number;
  readonly faults: ReadonlyMap<FaultKind, number>;
  readonly leaseErrors: number;
  readonly analysis: SoakAnalysis;
}

const faultNames: Record<FaultKind, string> = {
  stall: 'worker stall',
  sigstop: 'worker SIGSTOP/SIGCONT',
  'client-pause': 'CLIENT PAUSE',
  restart: 'redis-server SIGKILL + restart',
  'node-pause': 'master SIGSTOP/SIGCONT',
  'pg-restart': 'pg_ctl restart -m immediate',
  'pg-terminate': 'pg_terminate_backend',
  'pg-row-lock': 'rows locked past the statement timeout',
};

/**
 * The report, one string a line. Details first; the last line is always
 * `soak: <ops> ops, <accepted> accepted, <refused> refused, <unknown> unknown, <faults> faults, <anomalies> anomalies`.
 */
export function soakReportLines({ options, elapsedSeconds, faults, leaseErrors, analysis }: SoakReportInput): string[] {
  const { linearizability } = analysis;
  const faultTotal = [...faults.values()].reduce((sum, count) => sum + count, 0);
  const faultList = [...faults].map(([kind, count]) => `${count} ${faultNames[kind]}`).join(', ');
  const largestStale = largestMove(analysis.staleBackwardMoves);
  const largestRewind = largestMove(analysis.handoverRewinds);
  return [
    `setup: ${setupName(options)}, ${options.workers} worker processes, ${options.subscriptions} subscriptions, ` +
      `lease ${options.leaseMs} ms, ran ${elapsedSeconds.toFixed(1)} s`,
    `faults: ${faultList === '' ? 'none' : faultList}; lease-store call failures seen by workers: ${leaseErrors}`,
    `checker: ${linearizability.operationsChecked} operations on ${options.subscriptions} subscriptions, ` +
      `${linearizability.valid ? 'linearizable' : 'NOT linearizable'}, ${linearizability.steps} search steps in ${Math.round(analysis.checkMs)} ms`,
    ...linearizability.violations.map(({ explanation }) => `  violation: ${explanation}`),
    ...linearizability.inconclusive.map((id) => `  inconclusive: the search for ${id} ran out of steps`),
    `largest backward move by a stale token: ${largestStale === undefined ? 'none' : describeMove(largestStale)}`,
    `hand-over rewinds (a new holder fenced the position it read after an old holder's last accepted write; redelivery, not loss): ` +
      `${analysis.handoverRewinds.length}${largestRewind === undefined ? '' : `, largest ${describeMove(largestRewind)}`}`,
    `soak: ${analysis.operations} ops, ${analysis.accepted} accepted, ${analysis.refused} refused, ${analysis.unknown} unknown, ` +
      `${faultTotal} faults, ${analysis.anomalies} anomalies`,
  ];
}

function setupName(options: SoakOptions): string {
  if (options.postgres) {
    return 'PostgreSQL with fsync on, statement_timeout 1000 ms';
  }
  if (options.cluster) {
    return 'three-master Redis Cluster';
  }
  return options.loseWritesOnRestart
    ? 'redis-server WITHOUT persistence (negative control: restarts lose acknowledged writes)'
    : 'redis-server with appendonly yes, appendfsync always';
}

function describeMove(move: BackwardMove): string {
  return `${move.from.offset - move.to.offset} positions on ${move.subscriptionId} (${move.from.offset}@${move.from.token} -> ${move.to.offset}@${move.to.token})`;
}
