import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisSentinel, withAdminConnection, type RedisSentinelTopology } from '../support/redis/index.js';
import { inspectInProcess, type InProcessRun } from './support/in-process-inspect.js';

// inspect --redis on a master with one replica and three Sentinels: what it says about each master's replicas (listed,
// and known to the Sentinel given with --sentinel) and its min-replicas-to-write, and the set-ups it flags (exit 1): a
// partition that can leave a token on the wrong side (the application does not wait for every replica that could be
// promoted, and the server does not refuse writes without them), a count the replicas cannot reach, a server that
// refuses every write. In the sentinel project: it starts a Sentinel topology of its own.

let topology: RedisSentinelTopology | undefined;

beforeAll(async () => {
  topology = await startRedisSentinel();
});

afterAll(async () => {
  await topology?.stop();
});

function urls(): string[] {
  if (topology === undefined) {
    throw new Error('The Sentinel topology of this file did not start; see the beforeAll error.');
  }
  const [sentinel] = topology.sentinels;
  return [
    '--redis',
    `redis://127.0.0.1:${topology.master().port}`,
    '--sentinel',
    `redis://127.0.0.1:${sentinel?.port ?? 0}`,
  ];
}

function stream(run: InProcessRun, which: 'out' | 'err'): string {
  return run.writes.flatMap((write) => (write.stream === which ? [write.text] : [])).join('');
}

/** Runs `body` with `min-replicas-to-write` set to `count` on the master, and resets it after. */
async function withMinReplicasToWrite(count: number, body: () => Promise<void>): Promise<void> {
  const master = topology?.master();
  if (master === undefined) {
    throw new Error('no topology');
  }
  await withAdminConnection(master, (admin) => admin.config('SET', 'min-replicas-to-write', String(count)));
  try {
    await body();
  } finally {
    await withAdminConnection(master, (admin) => admin.config('SET', 'min-replicas-to-write', '0'));
  }
}

describe('inspect --redis on a master with a replica, and a Sentinel', { timeout: 60_000 }, () => {
  it('shows the replica listed and known to the Sentinel, and min-replicas-to-write; healthy by default', async () => {
    const run = await inspectInProcess(urls());
    expect(run.code).toBe(0);
    expect(stream(run, 'out')).toMatch(
      /^replication: master 127\.0\.0\.1:\d+: lists 1 replica \(127\.0\.0\.1:\d+ online, lag \d+ s\); Sentinel redis:\/\/127\.0\.0\.1:\d+ knows 1 \(checkpoint-fencing\); min-replicas-to-write 0 \(it writes with no replica\)\n0 subscriptions, all healthy; /u,
    );
  });

  it('flags a partition that can leave a token on the wrong side when the application does not wait: text, JSON (stderr) and Prometheus', async () => {
    const text = await inspectInProcess([...urls(), '--wait-for-replicas', 'false']);
    expect(text.code).toBe(1);
    expect(stream(text, 'out')).toMatch(
      /\n! replication: partition-can-lose-grants: master 127\.0\.0\.1:\d+ has 1 replica that could be promoted, the application waits for 0 \(--wait-for-replicas false\), and min-replicas-to-write 0 lets it write with fewer: /u,
    );
    const json = await inspectInProcess([...urls(), '--wait-for-replicas', 'false', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(stream(json, 'out'))).toEqual([]);
    expect(stream(json, 'err')).toMatch(/^! replication: partition-can-lose-grants: /u);
    const prometheus = await inspectInProcess([...urls(), '--wait-for-replicas', 'false', '--prometheus']);
    expect(stream(prometheus, 'out')).toContain('checkpoint_fencing_inspect_replicas{sync="async"} 1\n');
    expect(stream(prometheus, 'out')).toContain('checkpoint_fencing_inspect_replication_flagged 1\n');
  });

  it('takes min-replicas-to-write as the server refusing writes without its replicas, and flags counts nothing reaches', async () => {
    await withMinReplicasToWrite(1, async () => {
      const guarded = await inspectInProcess([...urls(), '--wait-for-replicas', 'false']);
      expect(guarded.code).toBe(0);
      expect(stream(guarded, 'out')).toContain('; min-replicas-to-write 1 (max lag 10 s)\n');
      const two = await inspectInProcess([...urls(), '--wait-for-replicas', '2']);
      expect(two.code).toBe(1);
      expect(stream(two, 'out')).toMatch(
        /\n! replication: master 127\.0\.0\.1:\d+ lists 1 replica and the application waits for 2: every grant and conditional write times out and fails\n/u,
      );
    });
    await withMinReplicasToWrite(2, async () => {
      const refusing = await inspectInProcess(urls());
      expect(refusing.code).toBe(1);
      expect(stream(refusing, 'out')).toMatch(
        /\n! replication: master 127\.0\.0\.1:\d+ has min-replicas-to-write 2 and lists 1 replica: it refuses every write\n/u,
      );
    });
  });
});
