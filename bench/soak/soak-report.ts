import type { FaultKind } from './fault-injector.js';
import type { FailoverRollback, FailoverSoakAnalysis } from './failover-epochs.js';
import type { FailoverRecord } from './sentinel-server-faults.js';
import { largestMove, type BackwardMove, type SoakAnalysis } from './soak-analysis.js';
import type { SoakOptions } from './soak-options.js';

/** A token the lease store handed to more than one worker for one subscription. */
export interface DuplicatedToken {
  readonly subscriptionId: string;
  readonly token: bigint;
  readonly workers: readonly string[];
}

/** What only a failover soak (Sentinel, PostgreSQL failover) reports. */
export interface FailoverReportInput {
  readonly analysis: FailoverSoakAnalysis;
  readonly records: readonly FailoverRecord[];
  /** Failovers the Sentinels made without the harness killing a master (a master they judged down on their own); 0 on PostgreSQL. */
  readonly unplanned: number;
  readonly duplicatedTokens: readonly DuplicatedToken[];
}

/** Everything the soak prints at the end. */
export interface SoakReportInput {
  readonly options: SoakOptions;
  readonly elapsedSeconds: number;
  readonly faults: ReadonlyMap<FaultKind, number>;
  readonly leaseErrors: number;
  readonly analysis: SoakAnalysis;
  /** Set for a Sentinel soak. */
  readonly failover?: FailoverReportInput;
}

const faultNames: Record<FaultKind, string> = {
  stall: 'worker stall',
  sigstop: 'worker SIGSTOP/SIGCONT',
  'client-pause': 'CLIENT PAUSE',
  restart: 'redis-server SIGKILL + restart',
  'node-pause': 'master SIGSTOP/SIGCONT',
  'replica-pause': 'replica SIGSTOP/SIGCONT',
  'master-kill': 'master SIGKILL + failover',
  'partition-kill': 'replication link cut + lease holder SIGSTOP + master SIGKILL + failover',
  'master-pause': 'master SIGSTOP + failover + SIGCONT (deposed while alive)',
  'minority-partition': 'master, a replica and a Sentinel cut off in a minority + failover on the other side',
  'pg-restart': 'pg_ctl restart -m immediate',
  'pg-terminate': 'pg_terminate_backend',
  'pg-row-lock': 'rows locked past the statement timeout',
  'standby-hold': 'standby link held',
  'primary-kill': 'primary SIGKILL + standby promoted',
  'primary-partition-kill': 'standby link held + lease holder SIGSTOP + primary SIGKILL + standby promoted',
};

/**
 * The report, one string a line. Details first; the last line is always
 * `soak: <ops> ops, <accepted> accepted, <refused> refused, <unknown> unknown, <faults> faults, <anomalies> anomalies`,
 * and for a Sentinel soak `, <failovers> failovers, <duplicated> duplicated tokens` after it.
 */
export function soakReportLines({
  options,
  elapsedSeconds,
  faults,
  leaseErrors,
  analysis,
  failover,
}: SoakReportInput): string[] {
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
      (failover === undefined ? '' : `in ${failover.analysis.failovers + 1} failover epochs, `) +
      `${linearizability.valid ? 'linearizable' : 'NOT linearizable'}, ${linearizability.steps} search steps in ${Math.round(analysis.checkMs)} ms`,
    ...linearizability.violations.map(({ explanation }) => `  violation: ${explanation}`),
    ...linearizability.inconclusive.map((id) => `  inconclusive: the search for ${id} ran out of steps`),
    `largest backward move by a stale token: ${largestStale === undefined ? 'none' : describeMove(largestStale)}`,
    `hand-over rewinds (a new holder fenced the position it read after an old holder's last accepted write; redelivery, not loss): ` +
      `${analysis.handoverRewinds.length}${largestRewind === undefined ? '' : `, largest ${describeMove(largestRewind)}`}`,
    ...(failover === undefined ? [] : failoverLines(failover)),
    `soak: ${analysis.operations} ops, ${analysis.accepted} accepted, ${analysis.refused} refused, ${analysis.unknown} unknown, ` +
      `${faultTotal} faults, ${analysis.anomalies} anomalies` +
      (failover === undefined
        ? ''
        : `, ${failover.records.length + failover.unplanned} failovers, ${failover.duplicatedTokens.length} duplicated tokens`),
  ];
}

function failoverLines({ analysis, records, unplanned, duplicatedTokens }: FailoverReportInput): string[] {
  const seconds = records.map(({ failoverMs }) => failoverMs / 1_000);
  const span =
    seconds.length === 0 ? '' : `, ${Math.min(...seconds).toFixed(1)}–${Math.max(...seconds).toFixed(1)} s each`;
  const partitioned = records.filter((record) => record.partitioned).length;
  const largestRollback = [...analysis.rollbacks].sort((a, b) => rollbackSize(b) - rollbackSize(a))[0];
  return [
    `failovers: ${records.length} driven (${partitioned} with the replication link cut), ${unplanned} unplanned${span}; ` +
      `snapshots read after a promotion: ${analysis.unreadableSnapshots}`,
    ...analysis.lostAcknowledgedWrites
      .slice(0, 5)
      .map(
        ({ subscriptionId, failover, checkpoint, snapshot }) =>
          `  lost: accepted save ${JSON.stringify(checkpoint)} on ${subscriptionId} is not on the replica promoted in failover ${failover} ` +
          `(it held ${snapshot === undefined ? 'nothing' : JSON.stringify(snapshot.checkpoint)})`,
      ),
    ...(analysis.lostAcknowledgedWrites.length > 5
      ? [`  … and ${analysis.lostAcknowledgedWrites.length - 5} more`]
      : []),
    ...(records.some((record) => record.minority !== undefined)
      ? [
          `calls on a cut-off master's side during a partition (not checked for linearizability): ${Math.round(analysis.cutOffCalls)}; ` +
            `saves accepted there (lost when it became a replica): ${analysis.acceptedWhileCutOff.length}` +
            analysis.acceptedWhileCutOff
              .slice(0, 3)
              .map(
                ({ subscriptionId, failover, checkpoint }) =>
                  `; ${JSON.stringify(checkpoint)} on ${subscriptionId} in failover ${failover}`,
              )
              .join(''),
        ]
      : []),
    `accepted writes lost in failovers: ${analysis.lostAcknowledgedWrites.length}; states a failover took back ` +
      `(unconfirmed writes, unless listed as lost above): ${analysis.rollbacks.length}` +
      (largestRollback === undefined ? '' : `, largest ${describeRollback(largestRollback)}`),
    `duplicated tokens (one token granted to two workers for one subscription): ${duplicatedTokens.length}` +
      duplicatedTokens
        .slice(0, 5)
        .map(({ subscriptionId, token, workers }) => `; ${subscriptionId} token ${token} to ${workers.join(' and ')}`)
        .join(''),
  ];
}

function rollbackSize({ from, to }: FailoverRollback): number {
  return from.offset - (to?.offset ?? -1);
}

function describeRollback(rollback: FailoverRollback): string {
  const { from, to, subscriptionId, failover } = rollback;
  return `${rollbackSize(rollback)} positions on ${subscriptionId} in failover ${failover} (${from.offset}@${from.token} -> ${to === undefined ? 'nothing' : `${to.offset}@${to.token}`})`;
}

function setupName(options: SoakOptions): string {
  if (options.sentinel) {
    return (
      (options.partition
        ? 'a master, two replicas and three Sentinels behind doors (down-after 1 s), '
        : 'a master, a replica and three Sentinels (down-after 500 ms), ') +
      (options.waitForReplicas
        ? "waitForReplicas 'auto' (the default)"
        : 'waitForReplicas false (negative control: grants and writes never wait for the replica)')
    );
  }
  if (options.postgresFailover) {
    return (
      'a PostgreSQL primary and an asynchronous streaming standby, statement_timeout 1000 ms, ' +
      (options.waitForStandbys
        ? "waitForStandbys 'auto' (the default)"
        : 'waitForStandbys false (negative control: grants and writes never wait for the standby)')
    );
  }
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
