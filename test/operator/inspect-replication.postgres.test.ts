import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointStorage, PostgresLeaseStrategy } from '../../runtime/index.js';
import { startReplicatedPostgres, testPool, type ReplicatedPostgres } from '../support/postgres/index.js';
import { inspectInProcess, type InProcessRun } from './support/in-process-inspect.js';

// inspect --postgres on a primary with one asynchronous streaming standby: what it says about the standbys, and the
// set-ups it flags (exit 1): asynchronous standbys the application does not wait for, a count no set-up reaches, a
// physical slot nothing streams from, walsenders the role cannot see.

let topology: ReplicatedPostgres;
let url: string;

beforeAll(async () => {
  topology = await startReplicatedPostgres();
  url = topology.primary.connectionString;
  const pool = testPool(topology.primary, { max: 1 });
  try {
    await new PostgresCheckpointStorage(pool).createTable();
    await new PostgresLeaseStrategy(pool).createTable();
  } finally {
    await pool.end();
  }
  await topology.waitUntilCaughtUp();
});

afterAll(async () => {
  await topology.stop();
});

function stream(run: InProcessRun, which: 'out' | 'err'): string {
  return run.writes.flatMap((write) => (write.stream === which ? [write.text] : [])).join('');
}

describe('inspect --postgres on a primary with a streaming standby', { timeout: 60_000 }, () => {
  it('shows the standby and what the application waits for; healthy by default', async () => {
    const run = await inspectInProcess(['--postgres', url]);
    expect(run.code).toBe(0);
    expect(stream(run, 'out')).toMatch(
      /^replication: 1 standby streams from this primary: standby1 \(async, streaming, written \d+ bytes behind\)\nreplication: waitForStandbys 'auto': grants and conditional writes wait until one standby wrote them\n0 subscriptions, all healthy; /u,
    );
  });

  it('flags asynchronous standbys the application does not wait for: text, JSON (stderr) and Prometheus', async () => {
    const text = await inspectInProcess(['--postgres', url, '--wait-for-standbys', 'false']);
    expect(text.code).toBe(1);
    expect(stream(text, 'out')).toMatch(
      /\n! replication: failover-can-lose-grants: 1 asynchronous standby streams and the application does not wait for them \(--wait-for-standbys false\): a failover to one can hand a token out twice and lose accepted writes\./u,
    );
    const json = await inspectInProcess(['--postgres', url, '--wait-for-standbys', 'false', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(stream(json, 'out'))).toEqual([]);
    expect(stream(json, 'err')).toMatch(/^! replication: failover-can-lose-grants: /u);
    const prometheus = await inspectInProcess(['--postgres', url, '--wait-for-standbys', 'false', '--prometheus']);
    expect(stream(prometheus, 'out')).toContain(
      'checkpoint_fencing_inspect_replicas{sync="sync"} 0\ncheckpoint_fencing_inspect_replicas{sync="async"} 1\n',
    );
    expect(stream(prometheus, 'out')).toContain('checkpoint_fencing_inspect_replication_flagged 1\n');
  });

  it('flags a count of standbys that do not stream, and says what a synchronous standby changes', async () => {
    const two = await inspectInProcess(['--postgres', url, '--wait-for-standbys', '2']);
    expect(two.code).toBe(1);
    expect(stream(two, 'out')).toContain(
      '! replication: waitForStandbys 2, but 1 standby streams: every grant and conditional write of the application times out and fails\n',
    );
    await topology.administer(`ALTER SYSTEM SET synchronous_standby_names = '${topology.standbyName}'`);
    await topology.administer('SELECT pg_reload_conf()');
    try {
      await topology.waitUntilCaughtUp();
      const synchronous = await inspectInProcess(['--postgres', url, '--wait-for-standbys', 'false']);
      expect(synchronous.code).toBe(0);
      expect(stream(synchronous, 'out')).toMatch(
        /^replication: 1 standby streams from this primary: standby1 \(sync, streaming, .*\); synchronous_standby_names 'standby1'\nreplication: waitForStandbys false: the synchronous standbys hold every commit before it is acknowledged, with no bound on the wait\n/u,
      );
    } finally {
      await topology.administer('ALTER SYSTEM RESET synchronous_standby_names');
      await topology.administer('SELECT pg_reload_conf()');
    }
  });

  it('flags a physical replication slot nothing streams from, and walsenders the role cannot see', async () => {
    await topology.administer("SELECT pg_create_physical_replication_slot('gone_standby')");
    await topology.administer('CREATE ROLE inspector LOGIN');
    try {
      const slot = await inspectInProcess(['--postgres', url]);
      expect(slot.code).toBe(1);
      expect(stream(slot, 'out')).toContain(
        '! replication: physical replication slot gone_standby not in use: a standby (or WAL archiver) that is not streaming now.',
      );
      const inspector = `postgresql://inspector@${topology.primary.host}:${topology.primary.port}/postgres`;
      const hidden = await inspectInProcess(['--postgres', inspector]);
      expect(stream(hidden, 'out')).toContain(
        '! replication: 1 walsender streams whose positions role "inspector" cannot see (pg_read_all_stats; GRANT pg_monitor gives it)',
      );
    } finally {
      await topology.administer("SELECT pg_drop_replication_slot('gone_standby')");
    }
  });

  it('on the standby itself, says so', async () => {
    const standby = topology.standby;
    expect(standby).toBeDefined();
    const run = await inspectInProcess(['--postgres', standby?.connectionString ?? '']);
    expect(stream(run, 'out')).toMatch(/^replication: this server is a standby \(in recovery\)/u);
  });
});
