import { afterEach, describe, expect, it, vi } from 'vitest';
import { FaultInjector } from '../../bench/soak/fault-injector.js';
import { analyseSoakHistory, largestMove } from '../../bench/soak/soak-analysis.js';
import { formatSoakCheckpoint, parseSoakCheckpoint } from '../../bench/soak/soak-checkpoint.js';
import { parseSoakOptions } from '../../bench/soak/soak-options.js';
import { soakReportLines } from '../../bench/soak/soak-report.js';
import { StallableLeaseClock } from '../../bench/soak/stallable-lease-clock.js';
import { CheckpointWriteCondition } from '../../runtime/index.js';
import type { CheckpointOperation, HistoryEvent } from '../support/linearizability/index.js';

const { notOlderThan } = CheckpointWriteCondition;
const save = (offset: number, token: bigint): CheckpointOperation => ({
  kind: 'save',
  subscriptionId: 'orders-0',
  checkpoint: formatSoakCheckpoint(offset, token),
  condition: notOlderThan(token),
});
const read: CheckpointOperation = { kind: 'read', subscriptionId: 'orders-0' };

function call(process: string, operation: CheckpointOperation, completion: HistoryEvent): HistoryEvent[] {
  return [{ type: 'invoke', process, operation }, completion];
}
const ok = (process: string, value?: string): HistoryEvent =>
  value === undefined ? { type: 'ok', process } : { type: 'ok', process, value };

describe('soak analysis', () => {
  it('counts operations, accepted, refused and unknown outcomes, an unfinished call among the unknown', () => {
    const history: HistoryEvent[] = [
      ...call('w0', save(1, 1n), ok('w0')),
      ...call('w1', save(1, 0n), { type: 'fail', process: 'w1', reason: 'refused' }),
      ...call('w0', save(2, 1n), { type: 'info', process: 'w0' }),
      ...call('obs', read, ok('obs', '2@1')),
      { type: 'invoke', process: 'w2', operation: save(3, 2n) },
    ];
    const analysis = analyseSoakHistory(history);
    expect(analysis).toMatchObject({ operations: 5, accepted: 1, refused: 1, unknown: 2, anomalies: 0 });
    expect(analysis.linearizability.valid).toBe(true);
  });

  it('reports a new holder fencing an older position as a hand-over rewind, not an anomaly', () => {
    const history: HistoryEvent[] = [
      ...call('old', save(10, 1n), ok('old')),
      ...call('new', read, ok('new', '10@1')),
      ...call('old', save(15, 1n), ok('old')),
      ...call('new', save(10, 2n), ok('new')),
      ...call('obs', read, ok('obs', '10@2')),
    ];
    const analysis = analyseSoakHistory(history);
    expect(analysis.anomalies).toBe(0);
    expect(analysis.handoverRewinds).toHaveLength(1);
    expect(largestMove(analysis.handoverRewinds)).toMatchObject({
      from: { offset: 15, token: 1n },
      to: { offset: 10, token: 2n },
    });
  });

  it('counts a stale token seen to replace a newer one as an anomaly, from reads as well as from the checker', () => {
    const history: HistoryEvent[] = [
      ...call('new', save(20, 2n), ok('new')),
      ...call('obs', read, ok('obs', '20@2')),
      ...call('old', save(15, 1n), ok('old')),
      ...call('obs', read, ok('obs', '15@1')),
    ];
    const analysis = analyseSoakHistory(history);
    expect(analysis.linearizability.valid).toBe(false);
    expect(analysis.staleBackwardMoves).toEqual([
      { subscriptionId: 'orders-0', from: { offset: 20, token: 2n }, to: { offset: 15, token: 1n } },
    ]);
    expect(analysis.anomalies).toBe(2);
  });

  it('parses only checkpoints a soak worker writes', () => {
    expect(parseSoakCheckpoint('120@7')).toEqual({ offset: 120, token: 7n });
    expect(parseSoakCheckpoint(undefined)).toBeUndefined();
    expect(() => parseSoakCheckpoint('120')).toThrow(/not "<offset>@<token>"/);
  });
});

describe('soak report', () => {
  it('ends with exactly the summary line the issue specifies, and names every fault kind', () => {
    const analysis = analyseSoakHistory([
      ...call('w0', save(1, 1n), ok('w0')),
      ...call('w1', save(1, 0n), { type: 'fail', process: 'w1', reason: 'refused' }),
      ...call('w0', save(2, 1n), { type: 'info', process: 'w0' }),
    ]);
    const lines = soakReportLines({
      options: parseSoakOptions(['--seconds', '5']),
      elapsedSeconds: 5.04,
      faults: new Map([
        ['restart', 2],
        ['stall', 1],
      ]),
      leaseErrors: 3,
      analysis,
    });
    expect(lines.at(-1)).toBe('soak: 3 ops, 1 accepted, 1 refused, 1 unknown, 3 faults, 0 anomalies');
    expect(lines.filter((line) => line.startsWith('soak:'))).toHaveLength(1);
    expect(lines).toContain(
      'faults: 2 redis-server SIGKILL + restart, 1 worker stall; lease-store call failures seen by workers: 3',
    );
    expect(lines).toContain('largest backward move by a stale token: none');
  });

  it('names the PostgreSQL setup and faults', () => {
    const lines = soakReportLines({
      options: parseSoakOptions(['--postgres']),
      elapsedSeconds: 1,
      faults: new Map([
        ['pg-restart', 1],
        ['pg-terminate', 2],
        ['pg-row-lock', 3],
      ]),
      leaseErrors: 0,
      analysis: analyseSoakHistory([]),
    });
    expect(lines[0]).toMatch(/^setup: PostgreSQL with fsync on/);
    expect(lines[1]).toBe(
      'faults: 1 pg_ctl restart -m immediate, 2 pg_terminate_backend, 3 rows locked past the statement timeout; lease-store call failures seen by workers: 0',
    );
    expect(lines.at(-1)).toBe('soak: 0 ops, 0 accepted, 0 refused, 0 unknown, 6 faults, 0 anomalies');
  });

  it('explains each violation and counts it among the anomalies', () => {
    const analysis = analyseSoakHistory([...call('w0', save(5, 2n), ok('w0')), ...call('w1', save(9, 1n), ok('w1'))]);
    const lines = soakReportLines({
      options: parseSoakOptions([]),
      elapsedSeconds: 1,
      faults: new Map(),
      leaseErrors: 0,
      analysis,
    });
    expect(lines.some((line) => line.startsWith('  violation: Subscription "orders-0" is not linearizable'))).toBe(
      true,
    );
    expect(lines.at(-1)).toMatch(/, 0 faults, [1-9]\d* anomalies$/);
  });
});

describe('soak options', () => {
  it('defaults to a bounded standalone run and reads every flag', () => {
    expect(parseSoakOptions([])).toEqual({
      seconds: 20,
      cluster: false,
      postgres: false,
      sentinel: false,
      postgresFailover: false,
      waitForStandbys: true,
      waitForReplicas: true,
      deposedMaster: false,
      partition: false,
      partitions: false,
      minFailovers: 0,
      workers: 4,
      subscriptions: 2,
      leaseMs: 600,
      maxOperations: 200_000,
      loseWritesOnRestart: false,
    });
    expect(parseSoakOptions(['--seconds', '30', '--cluster', '--workers', '3'])).toMatchObject({
      seconds: 30,
      cluster: true,
      workers: 3,
    });
  });

  it('refuses unbounded or malformed values, naming the flag and its bounds', () => {
    expect(() => parseSoakOptions(['--seconds', '0'])).toThrow(/--seconds "0" is not a whole number from 1 to 3600/);
    expect(() => parseSoakOptions(['--seconds', '1e9'])).toThrow(/--seconds/);
    expect(() => parseSoakOptions(['--lease-ms', '2.5'])).toThrow(/--lease-ms/);
    expect(() => parseSoakOptions(['--cluster', '--lose-writes-on-restart'])).toThrow(
      /needs a standalone redis-server/,
    );
    expect(() => parseSoakOptions(['--postgres', '--cluster'])).toThrow(/--postgres runs on one PostgreSQL server/);
    expect(() => parseSoakOptions(['--postgres', '--lose-writes-on-restart'])).toThrow(/--postgres/);
    expect(parseSoakOptions(['--seconds', '10', '--postgres'])).toMatchObject({ seconds: 10, postgres: true });
    expect(parseSoakOptions(['--sentinel', '--no-wait-for-replicas'])).toMatchObject({
      sentinel: true,
      waitForReplicas: false,
    });
    expect(() => parseSoakOptions(['--sentinel', '--cluster'])).toThrow(/--sentinel runs on a master, a replica/);
    expect(() => parseSoakOptions(['--no-wait-for-replicas'])).toThrow(/negative control; add --sentinel/);
    expect(parseSoakOptions(['--sentinel', '--deposed-master'])).toMatchObject({ deposedMaster: true });
    expect(() => parseSoakOptions(['--deposed-master'])).toThrow(/--deposed-master stops a Sentinel-managed master/);
    expect(parseSoakOptions(['--sentinel', '--partition'])).toMatchObject({ partition: true });
    expect(() => parseSoakOptions(['--partition'])).toThrow(/--partition cuts a Sentinel-managed master off/);
    expect(parseSoakOptions(['--sentinel', '--min-failovers', '4'])).toMatchObject({ minFailovers: 4 });
    expect(() => parseSoakOptions(['--min-failovers', '4'])).toThrow(/--min-failovers counts the failovers/);
    expect(() => parseSoakOptions(['--sentinel', '--min-failovers', '2.5'])).toThrow(/--min-failovers "2.5"/);
    expect(parseSoakOptions(['--postgres-failover', '--no-wait-for-standbys', '--min-failovers', '2'])).toMatchObject({
      postgresFailover: true,
      waitForStandbys: false,
      minFailovers: 2,
    });
    expect(() => parseSoakOptions(['--postgres-failover', '--postgres'])).toThrow(/--postgres-failover runs on/);
    expect(() => parseSoakOptions(['--no-wait-for-standbys'])).toThrow(/negative control; add --postgres-failover/);
    expect(() => parseSoakOptions(['--unknown'])).toThrow();
  });
});

describe('StallableLeaseClock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds a timer that falls due during a stall until the stall ends, and holds writers back as long', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const clock = new StallableLeaseClock();
    const fired: number[] = [];
    clock.setTimeout(() => fired.push(clock.now()), 100);
    clock.stall(500);
    let running = false;
    void clock.untilRunning().then(() => {
      running = true;
    });
    await vi.advanceTimersByTimeAsync(499);
    expect(fired).toEqual([]);
    expect(running).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toHaveLength(1);
    expect(running).toBe(true);
  });

  it('cancels a timer that the stall had already rescheduled', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const clock = new StallableLeaseClock();
    const callback = vi.fn();
    clock.stall(300);
    const timer = clock.setTimeout(callback, 100);
    await vi.advanceTimersByTimeAsync(150);
    clock.clearTimeout(timer);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(callback).not.toHaveBeenCalled();
  });
});

describe('FaultInjector', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('stops at a fault that fails and rejects stop() with its error, never leaving the rejection unhandled', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const unsettled = new Error('The Sentinel topology did not settle');
    const restart = vi.fn(() => Promise.reject(unsettled));
    const faults = new FaultInjector({
      leaseHolder: () => undefined,
      serverFaults: new Map([['restart', restart]]),
      leaseMs: 100,
      firstFault: 'restart',
    });
    faults.start();
    await vi.advanceTimersByTimeAsync(250);
    expect(faults.failed).toBe(true);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(restart).toHaveBeenCalledTimes(1);
    await expect(faults.stop()).rejects.toBe(unsettled);
    expect(faults.counts.get('restart')).toBeUndefined();
  });
});
