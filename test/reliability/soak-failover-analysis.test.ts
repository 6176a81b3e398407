import { describe, expect, it } from 'vitest';
import { analyseFailoverSoak } from '../../bench/soak/failover-epochs.js';
import type { FailoverRecord } from '../../bench/soak/sentinel-server-faults.js';
import { analyseSoakHistory } from '../../bench/soak/soak-analysis.js';
import { formatSoakCheckpoint } from '../../bench/soak/soak-checkpoint.js';
import { parseSoakOptions } from '../../bench/soak/soak-options.js';
import { soakReportLines } from '../../bench/soak/soak-report.js';
import { CheckpointWriteCondition } from '../../runtime/index.js';
import type {
  CheckpointOperation,
  CheckpointState,
  HistoryEvent,
  TimedHistoryEvent,
} from '../support/linearizability/index.js';

// The Sentinel soak checks each failover epoch on its own, and durability across each failover (ADR 1101).

const id = 'orders-0';
const save = (offset: number, token: bigint): CheckpointOperation => ({
  kind: 'save',
  subscriptionId: id,
  checkpoint: formatSoakCheckpoint(offset, token),
  condition: CheckpointWriteCondition.notOlderThan(token),
});
const read: CheckpointOperation = { kind: 'read', subscriptionId: id };

/** A history built call by call, each event one tick after the last. */
class Timeline {
  readonly events: TimedHistoryEvent[] = [];
  #time = 0n;

  call(process: string, operation: CheckpointOperation, completion: HistoryEvent): this {
    this.at({ type: 'invoke', process, operation });
    return this.at(completion);
  }

  at(event: HistoryEvent): this {
    this.#time += 10n;
    this.events.push({ time: this.#time, event });
    return this;
  }

  /** The time of the next event: a failover's SIGKILL placed here splits the history before it. */
  get now(): bigint {
    return this.#time + 1n;
  }
}

const ok = (process: string, value?: string): HistoryEvent =>
  value === undefined ? { type: 'ok', process } : { type: 'ok', process, value };
const info = (process: string): HistoryEvent => ({ type: 'info', process });

function failoverAt(killedAt: bigint, state: CheckpointState, snapshotBeforePromotion = true): FailoverRecord {
  return {
    killedAt,
    snapshot: new Map([[id, state]]),
    snapshotBeforePromotion,
    partitioned: true,
    failoverMs: 1_800,
  };
}

describe('analyseFailoverSoak', () => {
  it('lets a failover take back a write never reported accepted, though a reader saw it on the dead master', () => {
    const timeline = new Timeline()
      .call('w0', save(10, 2n), ok('w0'))
      .call('w0', save(11, 2n), info('w0'))
      .call('obs', read, ok('obs', '11@2'));
    const killedAt = timeline.now;
    timeline.call('obs', read, ok('obs', '10@2')).call('w0', save(11, 2n), ok('w0'));
    const failovers = [failoverAt(killedAt, { checkpoint: '10@2', version: 2n })];

    const analysis = analyseFailoverSoak(timeline.events, failovers);
    expect(analysis).toMatchObject({ failovers: 1, anomalies: 0, lostAcknowledgedWrites: [], operations: 5 });
    expect(analysis.rollbacks).toEqual([
      { subscriptionId: id, failover: 1, from: { offset: 11, token: 2n }, to: { offset: 10, token: 2n } },
    ]);
    // The same history as one epoch is not linearizable: a read saw 11@2, a later one 10@2, and no save between.
    expect(analyseSoakHistory(timeline.events.map(({ event }) => event)).anomalies).toBeGreaterThan(0);
  });

  it('lets a save of unknown outcome take effect after the failover, where a read sees it (CI: 1578@19 read after 1577@19)', () => {
    const timeline = new Timeline().call('w0', save(1577, 19n), ok('w0')).call('w0', save(1578, 19n), info('w0'));
    const killedAt = timeline.now;
    // The promoted replica lacked the unconfirmed 1578@19; the client still delivered it there.
    timeline.call('obs', read, ok('obs', '1578@19')).call('obs', read, ok('obs', '1578@19'));
    const analysis = analyseFailoverSoak(timeline.events, [
      failoverAt(killedAt, { checkpoint: '1577@19', version: 19n }),
    ]);
    expect(analysis).toMatchObject({ anomalies: 0, operations: 4, unknown: 1, lostAcknowledgedWrites: [] });
    // Only a save of unknown outcome is carried: a refused one, or a value never written, is still an anomaly.
    const refused = new Timeline()
      .call('w0', save(1577, 19n), ok('w0'))
      .call('w0', save(1578, 19n), { type: 'fail', process: 'w0', reason: 'refused' });
    const refusedKilledAt = refused.now;
    refused.call('obs', read, ok('obs', '1578@19'));
    expect(
      analyseFailoverSoak(refused.events, [failoverAt(refusedKilledAt, { checkpoint: '1577@19', version: 19n })])
        .anomalies,
    ).toBeGreaterThan(0);
  });

  it('counts an accepted save missing from the promoted replica as a lost write, an anomaly', () => {
    const timeline = new Timeline().call('w0', save(10, 2n), ok('w0')).call('w1', save(4, 3n), ok('w1'));
    const analysis = analyseFailoverSoak(timeline.events, [
      failoverAt(timeline.now, { checkpoint: '10@2', version: 2n }),
    ]);
    expect(analysis.lostAcknowledgedWrites).toEqual([
      { subscriptionId: id, failover: 1, checkpoint: '4@3', snapshot: { checkpoint: '10@2', version: 2n } },
    ]);
    expect(analysis.anomalies).toBe(1);
  });

  it('puts a call in the epoch it was invoked in, even when it completes after the SIGKILL', () => {
    const timeline = new Timeline().at({ type: 'invoke', process: 'w0', operation: save(12, 2n) });
    const killedAt = timeline.now;
    timeline.at(ok('w0')).call('obs', read, ok('obs', '12@2'));
    const analysis = analyseFailoverSoak(timeline.events, [failoverAt(killedAt, { checkpoint: '12@2', version: 2n })]);
    expect(analysis).toMatchObject({ anomalies: 0, lostAcknowledgedWrites: [], rollbacks: [] });
  });

  it('counts a failover whose replica was read after its promotion as an anomaly: nothing could be checked', () => {
    const timeline = new Timeline().call('w0', save(1, 0n), ok('w0'));
    const analysis = analyseFailoverSoak(timeline.events, [
      failoverAt(timeline.now, { checkpoint: '1@0', version: 0n }, false),
    ]);
    expect(analysis).toMatchObject({ unreadableSnapshots: 1, anomalies: 1 });
  });

  it("leaves the cut-off side's calls during a partition out of every epoch, and counts a save accepted there as an anomaly", () => {
    const timeline = new Timeline().call('worker-1/orders-0', save(5, 1n), ok('worker-1/orders-0'));
    const killedAt = timeline.now;
    // The cut-off master serves its own past and its unconfirmed writes: not linearizable with the majority's history.
    timeline
      .call('worker-0/orders-0', save(6, 1n), info('worker-0/orders-0'))
      .call('worker-0/orders-0', read, ok('worker-0/orders-0', '6@1'))
      .call('worker-1/orders-0', save(1, 2n), ok('worker-1/orders-0'))
      .call('obs', read, ok('obs', '1@2'));
    const healed = timeline.now;
    timeline.call('worker-0/orders-0', read, ok('worker-0/orders-0', '1@2'));
    const record = {
      ...failoverAt(killedAt, { checkpoint: '5@1', version: 1n }),
      minority: { workers: ['worker-0'], until: healed },
    };
    expect(analyseFailoverSoak(timeline.events, [record])).toMatchObject({
      anomalies: 0,
      cutOffCalls: 2,
      acceptedWhileCutOff: [],
    });
    // Opted out, the cut-off master takes a save: it is lost when that master becomes a replica.
    const optedOut = new Timeline().call('worker-1/orders-0', save(5, 1n), ok('worker-1/orders-0'));
    const cutAt = optedOut.now;
    optedOut.call('worker-0/orders-0', save(6, 1n), ok('worker-0/orders-0'));
    const analysis = analyseFailoverSoak(optedOut.events, [
      {
        ...failoverAt(cutAt, { checkpoint: '5@1', version: 1n }),
        minority: { workers: ['worker-0'], until: optedOut.now },
      },
    ]);
    expect(analysis).toMatchObject({
      anomalies: 1,
      acceptedWhileCutOff: [{ subscriptionId: id, failover: 1, checkpoint: '6@1' }],
    });
  });

  it('still finds a stale token moving the checkpoint back within an epoch', () => {
    const timeline = new Timeline().call('w0', save(5, 1n), ok('w0'));
    const killedAt = timeline.now;
    timeline
      .call('new', save(20, 2n), ok('new'))
      .call('obs', read, ok('obs', '20@2'))
      .call('old', save(15, 1n), ok('old'))
      .call('obs', read, ok('obs', '15@1'));
    const analysis = analyseFailoverSoak(timeline.events, [failoverAt(killedAt, { checkpoint: '5@1', version: 1n })]);
    expect(analysis.anomalies).toBeGreaterThan(0);
  });
});

describe('the Sentinel soak report', () => {
  it('names the setup and the faults, and ends with the summary line plus failovers and duplicated tokens', () => {
    const timeline = new Timeline().call('w0', save(1, 0n), ok('w0'));
    const record = failoverAt(timeline.now, { checkpoint: '1@0', version: 0n });
    const analysis = analyseFailoverSoak(timeline.events, [record]);
    const lines = soakReportLines({
      options: parseSoakOptions(['--sentinel', '--no-wait-for-replicas']),
      elapsedSeconds: 20.3,
      faults: new Map([
        ['partition-kill', 1],
        ['replica-pause', 2],
      ]),
      leaseErrors: 4,
      analysis,
      failover: {
        analysis,
        records: [record],
        unplanned: 0,
        duplicatedTokens: [{ subscriptionId: id, token: 3n, workers: ['worker-0', 'worker-1'] }],
      },
    });
    expect(lines[0]).toMatch(
      /^setup: a master, a replica and three Sentinels \(down-after 500 ms\), waitForReplicas false/u,
    );
    expect(lines).toContain(
      'faults: 1 replication link cut + lease holder SIGSTOP + master SIGKILL + failover, 2 replica SIGSTOP/SIGCONT; lease-store call failures seen by workers: 4',
    );
    expect(lines).toContain(
      'duplicated tokens (one token granted to two workers for one subscription): 1; orders-0 token 3 to worker-0 and worker-1',
    );
    expect(lines.at(-1)).toBe(
      'soak: 1 ops, 1 accepted, 0 refused, 0 unknown, 3 faults, 0 anomalies, 1 failovers, 1 duplicated tokens',
    );
  });
});
