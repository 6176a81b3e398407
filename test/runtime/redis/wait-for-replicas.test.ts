import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  PromotableReplicas,
  replicaServerOf,
  replicasListedIn,
  replicationStateIn,
  type ReplicatedClient,
} from '../../../runtime/redis/promotable-replicas.js';
import { promotableReplicasIn, sentinelViewIn } from '../../../runtime/redis/sentinel-replicas.js';
import { clusterHashSlot } from '../../../runtime/redis/cluster-hash-slot.js';
import { resolveWaitForReplicas } from '../../../runtime/redis/wait-for-replicas.js';
import { CheckpointWriteCondition, RedisCheckpointStorage, RedisLeaseStrategy } from '../../../runtime/index.js';
import { recordingRedisMock } from './recording-redis-mock.js';

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

/**
 * An `INFO replication` reply of a master with `connected` replicas under the replication ID `history`, its backlog
 * active or not.
 */
const masterInfo = (connected: number, history: string, backlogActive: 0 | 1 = 1): string =>
  `# Replication\r\nrole:master\r\nconnected_slaves:${connected}\r\nmaster_replid:${history}\r\n` +
  'master_replid2:0000000000000000000000000000000000000000\r\nmaster_repl_offset:920\r\n' +
  `repl_backlog_active:${backlogActive}\r\n`;

/** {@link masterInfo} with `lines` as its `slaveN:` lines. */
const withLines = (history: string, ...lines: string[]): string =>
  masterInfo(lines.length, history).replace('\r\nmaster_replid', `\r\n${lines.join('\r\n')}\r\nmaster_replid`);

/** A replication ID no other case uses (the IDs seen with a replica are remembered process-wide). */
const newHistory = (): string => randomBytes(20).toString('hex');

describe('replicationStateIn', () => {
  it('counts the most replicas a master listed under its replication ID, and none under a new ID', () => {
    const deposed = newHistory();
    expect(replicationStateIn(masterInfo(0, deposed)).counted).toBe(0);
    expect(replicationStateIn(masterInfo(2, deposed)).counted).toBe(2);
    expect(replicationStateIn(masterInfo(1, deposed))).toMatchObject({ listed: 1, counted: 2 });
    expect(replicationStateIn(masterInfo(0, deposed))).toMatchObject({ listed: 0, counted: 2 });
    expect(replicationStateIn(masterInfo(0, newHistory())).counted).toBe(0);
    expect(replicationStateIn('# Replication\r\nrole:master\r\nconnected_slaves:0\r\n').counted).toBe(0);
  });

  it('counts every replica with a listening port whatever its state, never a backup with redis-cli --rdb', () => {
    const history = newHistory();
    expect(
      replicationStateIn(withLines(history, 'slave0:ip=127.0.0.1,port=0,state=wait_bgsave,offset=0,lag=0')).counted,
    ).toBe(0);
    expect(replicationStateIn(masterInfo(0, history)).counted).toBe(0);
    const three = withLines(
      history,
      'slave0:ip=10.0.0.2,port=6379,state=online,offset=920,lag=0',
      'slave1:ip=10.0.0.3,port=6379,state=send_bulk,offset=0,lag=0',
      'slave2:ip=10.0.0.4,port=6379,state=wait_bgsave,offset=0,lag=0',
      'slave3:ip=127.0.0.1,port=0,state=online,offset=920,lag=0',
    );
    expect(replicasListedIn(three)).toBe(3);
    expect(replicationStateIn(masterInfo(0, history)).counted).toBe(0);
    replicationStateIn(three);
    expect(replicationStateIn(masterInfo(0, history)).counted).toBe(3);
    expect(replicasListedIn('# Server\r\nredis_version:6.2.14\r\n')).toBe(0);
  });

  it('reads whether the replication backlog is active', () => {
    expect(replicationStateIn(masterInfo(0, newHistory(), 1)).backlogActive).toBe(true);
    expect(replicationStateIn(masterInfo(0, newHistory(), 0)).backlogActive).toBe(false);
  });

  it('forgets the oldest histories past a thousand, and keeps one seen again', () => {
    const [first, second] = [newHistory(), newHistory()];
    replicationStateIn(masterInfo(1, first));
    replicationStateIn(masterInfo(1, second));
    for (let failover = 0; failover < 999; failover += 1) {
      replicationStateIn(masterInfo(1, newHistory()));
      if (failover === 500) {
        replicationStateIn(masterInfo(1, first));
      }
    }
    expect(replicationStateIn(masterInfo(0, first)).counted).toBe(1);
    expect(replicationStateIn(masterInfo(0, second)).counted).toBe(0);
  });
});

describe('PromotableReplicas: what a write must reach, by topology', () => {
  it('on a plain client: what the server lists; one when it lists none but its backlog says it had a replica', async () => {
    const promotable = PromotableReplicas.of({});
    expect(await judged(promotable, masterInfo(0, newHistory(), 0))).toEqual({ replicas: 0, reason: undefined });
    expect(await judged(promotable, masterInfo(2, newHistory(), 1))).toEqual({ replicas: 2, reason: undefined });
    const cutOff = await judged(promotable, masterInfo(0, newHistory(), 1));
    expect(cutOff.replicas).toBe(1);
    expect(cutOff.reason).toMatch(/replication backlog is active/u);
  });

  it("on a Cluster: the replicas the slot table lists for the key's slot when more than its master lists", async () => {
    const slot = clusterHashSlot('{orders}');
    const slots: string[][] = [];
    slots[slot] = ['10.0.0.1:7000', '10.0.0.2:7000', '10.0.0.3:7000'];
    const promotable = PromotableReplicas.of({ isCluster: true, slots });
    const requirement = await promotable.judge('slot', '{orders}', masterInfo(0, newHistory(), 1), 0, 10);
    expect(requirement.replicas).toBe(2);
    expect(requirement.reason).toMatch(new RegExp(`node table lists 2 replicas of the master of slot ${slot}`, 'u'));
    // No backlog rule on a Cluster: its node table says which replicas exist.
    expect(await promotable.judge('other', '{other}', masterInfo(0, newHistory(), 1), 0, 10)).toEqual({
      replicas: 0,
      reason: undefined,
    });
  });

  it('on a Sentinel client: the replicas its Sentinels list that could be promoted, united by address', async () => {
    const sentinels = fakeSentinels([
      [replicaEntry('10.0.0.2'), replicaEntry('10.0.0.3', { flags: 's_down,slave,disconnected' })],
      [replicaEntry('10.0.0.3'), replicaEntry('10.0.0.4', { 'slave-priority': '0' })],
      new Error('connection timed out'),
    ]);
    const promotable = PromotableReplicas.of(sentinels.client);
    const requirement = await judged(promotable, masterInfo(1, newHistory(), 1));
    expect(requirement.replicas).toBe(2);
    expect(requirement.reason).toMatch(/the Sentinels list 2 replicas that could be promoted/u);
    expect(sentinels.asked).toBe(6);
    expect(sentinels.open).toBe(0);
  });

  it('on a Sentinel client none answering: one replica, so a master that lists none grants nothing', async () => {
    const promotable = PromotableReplicas.of(fakeSentinels([new Error('down'), new Error('down')]).client);
    const requirement = await judged(promotable, masterInfo(0, newHistory(), 0));
    expect(requirement.replicas).toBe(1);
    expect(requirement.reason).toMatch(/no Sentinel the client knows answered SENTINEL REPLICAS within 10 ms/u);
  });

  it('uses an answer of the Sentinels for a second, then asks again in the background', async () => {
    const sentinels = fakeSentinels([[replicaEntry('10.0.0.2')]]);
    const promotable = PromotableReplicas.of(sentinels.client);
    promotable.expected('server', 10);
    await judged(promotable, masterInfo(0, newHistory(), 0));
    await judged(promotable, masterInfo(0, newHistory(), 0));
    expect(sentinels.asked).toBe(2);
  });

  it('expects the count the last write judged until a connection closes; a new Cluster slot map or node keeps it', async () => {
    const client = new EventEmitter();
    const promotable = PromotableReplicas.of(client);
    expect(promotable.expected('server', 10)).toBe(0);
    await promotable.judge('server', 'k', masterInfo(2, newHistory()), promotable.epoch, 10);
    client.emit('refresh');
    client.emit('+node', new EventEmitter());
    client.emit('-node', new EventEmitter());
    expect(promotable.expected('server', 10)).toBe(2);
    client.emit('close');
    expect(promotable.expected('server', 10)).toBe(0);
    // A reply read over the old connections is not kept.
    await promotable.judge('server', 'k', masterInfo(2, newHistory()), promotable.epoch - 1, 10);
    expect(promotable.expected('server', 10)).toBe(0);
  });

  it("starts a new epoch when one of a Cluster's nodes closes, those it had first and those it adds", () => {
    const [before, added] = [new EventEmitter(), new EventEmitter()];
    const cluster = Object.assign(new EventEmitter(), { nodes: () => [before] });
    const promotable = PromotableReplicas.of(cluster);
    cluster.emit('+node', added);
    for (const node of [before, added]) {
      const epoch = promotable.epoch;
      node.emit('close');
      expect(promotable.epoch).toBe(epoch + 1);
    }
  });

  it('is one instance per client, shared by everything over it', () => {
    const client = {};
    expect(PromotableReplicas.of(client)).toBe(PromotableReplicas.of(client));
    expect(PromotableReplicas.of(client)).not.toBe(PromotableReplicas.of({}));
  });
});

describe("the Sentinels' replicas, and replicaServerOf", () => {
  it('leaves out a replica never promoted (priority 0), never reached (no run ID), and one last seen as a master', () => {
    const view = sentinelViewIn(sentinelMaster(3), [
      replicaEntry('10.0.0.2'),
      replicaEntry('10.0.0.3', { 'slave-priority': '0' }),
      replicaEntry('10.0.0.4', { runid: '' }),
      replicaEntry('10.0.0.5', { 'role-reported': 'master', flags: 's_down,slave,disconnected' }),
      replicaEntry('10.0.0.6', { flags: 's_down,slave' }),
    ]);
    expect(view).toEqual({
      sentinels: 3,
      replicas: [
        { address: '10.0.0.2:6379', down: false },
        { address: '10.0.0.6:6379', down: true },
      ],
    });
    expect(() => sentinelViewIn('ERR No such master with that name', [])).toThrow(/did not answer with a list/u);
  });

  it('counts a replica every answering Sentinel flags down only while they are not a majority of the Sentinels', () => {
    const down = { address: 'a:1', down: true };
    const up = { address: 'a:1', down: false };
    const other = { address: 'b:1', down: true };
    // The minority's one Sentinel of three: the replica it cannot reach may be the one the majority promotes.
    expect(promotableReplicasIn([{ sentinels: 3, replicas: [down, other] }])).toBe(2);
    // Two of three, both seeing them down: no majority can promote them.
    expect(
      promotableReplicasIn([
        { sentinels: 3, replicas: [down, other] },
        { sentinels: 3, replicas: [down] },
      ]),
    ).toBe(0);
    // One of the majority reaches it: counted.
    expect(
      promotableReplicasIn([
        { sentinels: 3, replicas: [down] },
        { sentinels: 3, replicas: [up] },
      ]),
    ).toBe(1);
  });

  it('keeps one count for a server, and one per hash slot on a Cluster, where each master has its own replicas', () => {
    expect(replicaServerOf('{orders}:lease', false)).toBe('server');
    expect(replicaServerOf('{orders}:lease', true)).toBe(`slot ${clusterHashSlot('orders')}`);
    expect(replicaServerOf('x{orders}y', true)).toBe(replicaServerOf('{orders}:token', true));
  });
});

/** The requirement of a write on a server that answered `info`. */
function judged(promotable: PromotableReplicas, info: string): ReturnType<PromotableReplicas['judge']> {
  return promotable.judge('server', 'k', info, promotable.epoch, 10);
}

/** A `SENTINEL REPLICAS` entry of a replica at `ip`:6379 its Sentinel could promote, with `fields` over it. */
function replicaEntry(ip: string, fields: Record<string, string> = {}): string[] {
  const entry: Record<string, string> = {
    name: `${ip}:6379`,
    ip,
    port: '6379',
    runid: randomBytes(20).toString('hex'),
    flags: 'slave',
    'role-reported': 'slave',
    'slave-priority': '100',
    ...fields,
  };
  return Object.entries(entry).flat();
}

/** A `SENTINEL MASTER` reply of a Sentinel that counts `sentinels` Sentinels, itself included. */
function sentinelMaster(sentinels: number): string[] {
  return ['name', 'mymaster', 'flags', 'master', 'num-other-sentinels', String(sentinels - 1), 'quorum', '2'];
}

/**
 * A Sentinel client whose `duplicate` makes a connection to each Sentinel of `answers` in turn (one of three),
 * answering `SENTINEL REPLICAS` with its entries or failing; counts the questions and the connections left open.
 */
function fakeSentinels(answers: readonly (string[][] | Error)[]): {
  readonly client: ReplicatedClient;
  readonly asked: number;
  readonly open: number;
} {
  let asked = 0;
  let open = 0;
  const client = {
    options: { sentinels: answers.map((_, index) => ({ host: '127.0.0.1', port: 26379 + index })), name: 'mymaster' },
    duplicate: (override: { port: number }) => {
      const answer = answers[override.port - 26379];
      open += 1;
      return {
        on: () => undefined,
        disconnect: () => {
          open -= 1;
        },
        call: (...args: string[]) => {
          asked += 1;
          if (answer instanceof Error) {
            return Promise.reject(answer);
          }
          expect(args.slice(0, 1).concat(args.slice(2))).toEqual(['SENTINEL', 'mymaster']);
          return Promise.resolve(args[1] === 'MASTER' ? sentinelMaster(3) : answer);
        },
      };
    },
  };
  return {
    client,
    get asked() {
      return asked;
    },
    get open() {
      return open;
    },
  };
}

describe('RedisCheckpointStorage with the default waitForReplicas on ioredis-mock (no replicas)', () => {
  it('asks nothing before a write: each reads INFO replication right after it, and sends no WAIT', async () => {
    const { client, calls } = await recordingRedisMock();
    const storage = new RedisCheckpointStorage(client);
    for (let version = 1; version <= 5; version += 1) {
      const before = calls.length;
      await storage.save('orders', `cp-${version}`, CheckpointWriteCondition.notOlderThan(version));
      // Later writes' EVALSHA and INFO go out in one pipeline (recorded as 'pipeline'); the mock's pipeline cannot
      // carry the first write's EVAL, which goes alone, INFO replication right after it.
      expect(calls.slice(before).filter(([name]) => name !== 'info' || version > 1)).toEqual(
        version === 1 ? [['pipeline'], ['pipeline'], expect.arrayContaining(['eval'])] : [['pipeline']],
      );
    }
    expect(calls.filter(([name]) => name === 'info')).toEqual([
      ['info', 'server'],
      ['info', 'replication'],
    ]);
    expect(calls.some(([name]) => name === 'wait')).toBe(false);
    expect(await storage.writeVersion('orders')).toBe(5n);
    client.disconnect();
  });
});
