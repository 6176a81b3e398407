import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  ConnectedReplicaCounts,
  connectedReplicasIn,
  replicaServerOf,
  replicasToWaitFor,
  replicaCountRefreshMs,
  replicasToCountIn,
} from '../../../runtime/redis/connected-replicas.js';
import { clusterHashSlot } from '../../../runtime/redis/cluster-hash-slot.js';
import { resolveWaitForReplicas } from '../../../runtime/redis/wait-for-replicas.js';
import { CheckpointWriteCondition, RedisCheckpointStorage, RedisLeaseStrategy } from '../../../runtime/index.js';
import { recordingRedisMock } from './recording-redis-mock.js';

const replicationInfo = (count: number): string =>
  `# Replication\r\nrole:master\r\nconnected_slaves:${count}\r\nmaster_failover_state:no-failover\r\n`;

/** A reader of INFO replication that answers from `answers` in turn and counts its calls. */
function scriptedReader(...answers: (number | Error)[]): { read: () => Promise<string>; readonly calls: number } {
  let calls = 0;
  return {
    read: () => {
      const answer = answers[Math.min(calls, answers.length - 1)];
      calls += 1;
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(replicationInfo(answer ?? 0));
    },
    get calls() {
      return calls;
    },
  };
}

describe('resolveWaitForReplicas', () => {
  it("reads a missing option and 'auto' as { replicas: 'auto' } with the owner's default timeout, and false as no wait", () => {
    expect(resolveWaitForReplicas(undefined, 500, 'X')).toEqual({ replicas: 'auto', timeoutMs: 500 });
    expect(resolveWaitForReplicas('auto', 60, 'X')).toEqual({ replicas: 'auto', timeoutMs: 60 });
    expect(resolveWaitForReplicas(false, 500, 'X')).toBeUndefined();
    expect(resolveWaitForReplicas({ replicas: 2, timeoutMs: 100 }, 500, 'X')).toEqual({ replicas: 2, timeoutMs: 100 });
    expect(resolveWaitForReplicas({ replicas: 'auto', timeoutMs: 100 }, 500, 'X')).toEqual({
      replicas: 'auto',
      timeoutMs: 100,
    });
  });

  it('refuses counts and timeouts WAIT would misread, naming the owner and the way to opt out', () => {
    for (const bad of [
      { replicas: 0, timeoutMs: 100 },
      { replicas: 1.5, timeoutMs: 100 },
      { replicas: 1, timeoutMs: 0 },
      { replicas: 1 },
      { replicas: 'all', timeoutMs: 100 },
      true,
      1,
      null,
      'sometimes',
    ]) {
      expect(() => resolveWaitForReplicas(bad as never, 500, 'RedisCheckpointStorage')).toThrow(
        /^RedisCheckpointStorage: waitForReplicas must be 'auto', false, or \{ replicas, timeoutMs \}.*Use false to send no WAIT\.$/u,
      );
    }
  });

  it('is checked by both constructors, and the lease default scales with the lease time', () => {
    const client = {} as never;
    expect(() => new RedisCheckpointStorage(client, { waitForReplicas: { replicas: 1, timeoutMs: 0 } })).toThrow(
      RangeError,
    );
    expect(() => new RedisLeaseStrategy(client, { waitForReplicas: { replicas: 0, timeoutMs: 10 } })).toThrow(
      /RedisLeaseStrategy: waitForReplicas/u,
    );
  });
});

/** An `INFO replication` reply of a master with `connected` replicas under the replication ID `history`. */
const masterInfo = (connected: number, history: string): string =>
  `# Replication\r\nrole:master\r\nconnected_slaves:${connected}\r\nmaster_replid:${history}\r\n` +
  'master_replid2:0000000000000000000000000000000000000000\r\nmaster_repl_offset:920\r\n';

/** A replication ID no other case uses (the IDs seen with a replica are remembered process-wide). */
const newHistory = (): string => randomBytes(20).toString('hex');

describe('replicasToCountIn', () => {
  it('counts a replica a master lost under the replication ID it had it under, and none under a new ID', () => {
    const deposed = newHistory();
    expect(replicasToCountIn(masterInfo(0, deposed))).toBe(0);
    expect(replicasToCountIn(masterInfo(2, deposed))).toBe(2);
    expect(replicasToCountIn(masterInfo(0, deposed))).toBe(1);
    expect(replicasToCountIn(masterInfo(0, newHistory()))).toBe(0);
    expect(replicasToCountIn(replicationInfo(0))).toBe(0);
  });

  it('counts only online replicas with a listening port: a backup with redis-cli --rdb is neither waited for nor remembered', () => {
    const history = newHistory();
    const withLines = (...lines: string[]): string =>
      masterInfo(lines.length, history).replace('\r\nmaster_replid', `\r\n${lines.join('\r\n')}\r\nmaster_replid`);
    expect(replicasToCountIn(withLines('slave0:ip=127.0.0.1,port=0,state=wait_bgsave,offset=0,lag=0'))).toBe(0);
    expect(replicasToCountIn(masterInfo(0, history))).toBe(0);
    expect(
      replicasToCountIn(
        withLines(
          'slave0:ip=10.0.0.2,port=6379,state=online,offset=920,lag=0',
          'slave1:ip=10.0.0.3,port=6379,state=send_bulk,offset=0,lag=0',
          'slave2:ip=127.0.0.1,port=0,state=online,offset=920,lag=0',
        ),
      ),
    ).toBe(1);
    expect(replicasToCountIn(masterInfo(0, history))).toBe(1);
  });

  it('forgets the oldest histories past a thousand, and keeps one seen again', () => {
    const [first, second] = [newHistory(), newHistory()];
    replicasToCountIn(masterInfo(1, first));
    replicasToCountIn(masterInfo(1, second));
    for (let failover = 0; failover < 999; failover += 1) {
      replicasToCountIn(masterInfo(1, newHistory()));
      if (failover === 500) {
        replicasToCountIn(masterInfo(1, first));
      }
    }
    expect(replicasToCountIn(masterInfo(0, first))).toBe(1);
    expect(replicasToCountIn(masterInfo(0, second))).toBe(0);
  });
});

describe('ConnectedReplicaCounts', () => {
  it('reads connected_slaves, and 0 from a reply without it', () => {
    expect(connectedReplicasIn(replicationInfo(2))).toBe(2);
    expect(connectedReplicasIn('# Server\r\nredis_version:6.2.14\r\n')).toBe(0);
  });

  it('asks once, answers from the cache at once for a second, then refreshes in the background while the old count answers', async () => {
    let now = 0;
    const counts = new ConnectedReplicaCounts(() => now);
    const reader = scriptedReader(1, 0);
    const first = counts.count('server', reader.read);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toBe(1);
    now = replicaCountRefreshMs - 1;
    expect(counts.count('server', reader.read)).toBe(1);
    expect(reader.calls).toBe(1);
    now = replicaCountRefreshMs;
    expect(counts.count('server', reader.read)).toBe(1);
    expect(counts.count('server', reader.read)).toBe(1);
    expect(reader.calls).toBe(2);
    await Promise.resolve();
    await Promise.resolve();
    expect(counts.count('server', reader.read)).toBe(0);
  });

  it('shares one read among concurrent first callers, and keeps servers apart', async () => {
    const counts = new ConnectedReplicaCounts(() => 0);
    const reader = scriptedReader(3);
    const other = scriptedReader(0);
    const answers = await Promise.all([
      counts.count('slot 1', reader.read),
      counts.count('slot 1', reader.read),
      counts.count('slot 2', other.read),
    ]);
    expect(answers).toEqual([3, 3, 0]);
    expect([reader.calls, other.calls]).toEqual([1, 1]);
  });

  it('does not cache a first read that failed, and keeps the old count when a refresh fails', async () => {
    let now = 0;
    const counts = new ConnectedReplicaCounts(() => now);
    const reader = scriptedReader(new Error('down'), 1, new Error('down again'), 0);
    await expect(counts.count('server', reader.read)).rejects.toThrow('down');
    expect(await counts.count('server', reader.read)).toBe(1);
    now = replicaCountRefreshMs;
    expect(counts.count('server', reader.read)).toBe(1);
    await Promise.resolve();
    await Promise.resolve();
    expect(counts.count('server', reader.read)).toBe(1);
    await Promise.resolve();
    await Promise.resolve();
    expect(reader.calls).toBe(4);
    expect(counts.count('server', reader.read)).toBe(0);
  });

  it('forget makes the next caller wait for a fresh count', async () => {
    const counts = new ConnectedReplicaCounts(() => 0);
    const reader = scriptedReader(1, 0);
    expect(await counts.count('server', reader.read)).toBe(1);
    counts.forget('server');
    expect(await counts.count('server', reader.read)).toBe(0);
  });

  it('reads a count of 0 again before it decides once it is a refresh interval old: a replica may have attached since', async () => {
    let now = 0;
    const counts = new ConnectedReplicaCounts(() => now);
    const reader = scriptedReader(0, 1);
    expect(await counts.count('server', reader.read)).toBe(0);
    now = replicaCountRefreshMs - 1;
    expect(counts.count('server', reader.read)).toBe(0);
    now = 60_000;
    const stale = counts.count('server', reader.read);
    expect(stale).toBeInstanceOf(Promise);
    expect(await stale).toBe(1);
    expect(reader.calls).toBe(2);
  });

  it("measures a count's age from when it was asked for, not from when the answer came", async () => {
    let now = 0;
    const counts = new ConnectedReplicaCounts(() => now);
    let answer: (info: string) => void = () => undefined;
    const first = counts.count('server', () => new Promise((resolve) => (answer = resolve)));
    now = replicaCountRefreshMs;
    answer(replicationInfo(0));
    expect(await first).toBe(0);
    expect(counts.count('server', scriptedReader(0).read)).toBeInstanceOf(Promise);
  });

  it('reads every count again before it decides after the client reconnects, and after a Cluster changes its slot map or nodes', async () => {
    for (const reconnect of [
      (client: EventEmitter) => client.emit('close'),
      (client: EventEmitter) => client.emit('refresh'),
      (client: EventEmitter) => client.emit('-node', new EventEmitter()),
      (client: EventEmitter) => client.emit('+node', new EventEmitter()),
    ]) {
      const client = Object.assign(new EventEmitter(), { status: 'ready' });
      const counts = ConnectedReplicaCounts.of(client);
      const reader = scriptedReader(0, 1, 0);
      expect(await counts.count('slot 1', reader.read)).toBe(0);
      expect(await counts.count('slot 2', reader.read)).toBe(1);
      reconnect(client);
      const [first, second] = [counts.count('slot 1', reader.read), counts.count('slot 2', reader.read)];
      expect([first, second].every((count) => count instanceof Promise)).toBe(true);
      expect(reader.calls).toBe(4);
    }
  });

  it("starts a new epoch when one of a Cluster's nodes closes, those it had before the counts were made included", async () => {
    const [before, added] = [new EventEmitter(), new EventEmitter()];
    const cluster = Object.assign(new EventEmitter(), { status: 'ready', nodes: () => [before] });
    const counts = ConnectedReplicaCounts.of(cluster);
    cluster.emit('+node', added);
    for (const node of [before, added]) {
      expect(await counts.count('slot 1', scriptedReader(1).read)).toBe(1);
      node.emit('close');
      expect(counts.count('slot 1', scriptedReader(1).read)).toBeInstanceOf(Promise);
    }
  });

  it('counts no connect-time event as a reconnection before the client first answers', async () => {
    const cluster = Object.assign(new EventEmitter(), { status: 'connecting' });
    const counts = ConnectedReplicaCounts.of(cluster);
    const reader = scriptedReader(0);
    const first = counts.count('slot 1', reader.read);
    cluster.emit('+node', new EventEmitter());
    cluster.emit('refresh');
    cluster.emit('ready');
    expect(await first).toBe(0);
    expect(counts.count('slot 1', reader.read)).toBe(0);
    cluster.emit('refresh');
    expect(counts.count('slot 1', reader.read)).toBeInstanceOf(Promise);
  });

  it('does not trust a count whose reply was on its way when the client reconnected', async () => {
    const client = Object.assign(new EventEmitter(), { status: 'ready' });
    const counts = ConnectedReplicaCounts.of(client);
    let answer: (info: string) => void = () => undefined;
    const inFlight = counts.count('server', () => new Promise((resolve) => (answer = resolve)));
    client.emit('close');
    answer(replicationInfo(0));
    expect(await inFlight).toBe(0);
    const reader = scriptedReader(1);
    expect(await counts.count('server', reader.read)).toBe(1);
    expect(reader.calls).toBe(1);
  });

  it('is one instance per client, shared by everything over it', () => {
    const client = {};
    expect(ConnectedReplicaCounts.of(client)).toBe(ConnectedReplicaCounts.of(client));
    expect(ConnectedReplicaCounts.of(client)).not.toBe(ConnectedReplicaCounts.of({}));
  });
});

describe('replicasToWaitFor and replicaServerOf', () => {
  it("waits for an explicit count without asking, and for 'auto' for one replica exactly while the server has any", async () => {
    const counts = new ConnectedReplicaCounts(() => 0);
    const never = scriptedReader(new Error('must not be asked'));
    expect(replicasToWaitFor({ replicas: 2, timeoutMs: 10 }, counts, 'server', never.read)).toBe(2);
    expect(never.calls).toBe(0);
    expect(await replicasToWaitFor({ replicas: 'auto', timeoutMs: 10 }, counts, 'a', scriptedReader(3).read)).toBe(1);
    expect(await replicasToWaitFor({ replicas: 'auto', timeoutMs: 10 }, counts, 'b', scriptedReader(0).read)).toBe(0);
    expect(replicasToWaitFor({ replicas: 'auto', timeoutMs: 10 }, counts, 'a', never.read)).toBe(1);
  });

  it('keeps one count for a server, and one per hash slot on a Cluster, where each master has its own replicas', () => {
    expect(replicaServerOf('{orders}:lease', false)).toBe('server');
    expect(replicaServerOf('{orders}:lease', true)).toBe(`slot ${clusterHashSlot('orders')}`);
    expect(replicaServerOf('x{orders}y', true)).toBe(replicaServerOf('{orders}:token', true));
  });
});

describe('RedisCheckpointStorage with the default waitForReplicas on ioredis-mock (no replicas)', () => {
  it('asks INFO replication once, then sends no WAIT and no further INFO within the refresh interval', async () => {
    const { client, calls } = await recordingRedisMock();
    const storage = new RedisCheckpointStorage(client);
    for (let version = 1; version <= 5; version += 1) {
      await storage.save('orders', `cp-${version}`, CheckpointWriteCondition.notOlderThan(version));
    }
    expect(calls.filter(([name]) => name === 'info')).toEqual([
      ['info', 'replication'],
      ['info', 'server'],
    ]);
    expect(calls.some(([name]) => name === 'wait' || name === 'pipeline')).toBe(false);
    client.disconnect();
  });
});
