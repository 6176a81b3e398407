import { afterEach, describe, expect, it, vi } from 'vitest';
import { CheckpointWriteCondition, RedisCheckpointStorage } from '../../../runtime/index.js';
import { clusterHashSlot } from '../../../runtime/redis/cluster-hash-slot.js';
import { assertRouted, execRouted } from '../../../runtime/redis/cluster-redirection.js';
import { RedisLeaseStore } from '../../../runtime/redis/redis-lease-store.js';

type Reply = [Error | null, unknown];
/** Where a pipeline went: `'slot map'` through the Cluster's routing, or a node's `host:port`. */
type Destination = string;

const replicaInfo =
  '# Replication\r\nrole:master\r\nconnected_slaves:1\r\nslave0:ip=127.0.0.1,port=7101,state=online\r\n';

/**
 * A stand-in for an ioredis `Cluster` with two nodes (7001, 7002): `answer` gives the replies of each pipeline from
 * where it went and its commands, as a real one would after a migration. A redirected pipeline comes back from the
 * slot map's node as ioredis leaves a pipeline whose other commands are not read-only. Records every pipeline sent.
 */
function fakeCluster(answer: (destination: Destination, commands: string[]) => Reply[], options: object = {}) {
  const sent: string[] = [];
  const pipelineTo = (destination: Destination) => () => {
    const commands: string[] = [];
    const queue =
      (name: string) =>
      (...args: unknown[]) => {
        // A script is named by its command alone; other commands by their key too.
        commands.push(name.startsWith('eval') ? name : [name, ...args.slice(0, 1)].join(' '));
        return pipeline;
      };
    const pipeline = {
      asking: queue('asking'),
      get: queue('get'),
      set: queue('set'),
      del: queue('del'),
      eval: queue('eval'),
      evalsha: queue('evalsha'),
      info: queue('info'),
      wait: queue('wait'),
      exec: (): Promise<Reply[]> => {
        sent.push(`${destination}: ${commands.join(', ')}`);
        return Promise.resolve(answer(destination, commands));
      },
    };
    return pipeline;
  };
  const node = (port: number) => ({
    status: 'ready',
    options: { host: '127.0.0.1', port },
    pipeline: pipelineTo(`127.0.0.1:${port}`),
    // A node's connection events ('close'); none happen here.
    on: (): void => undefined,
  });
  const client = {
    isCluster: true,
    options,
    refreshes: 0,
    refreshSlotsCache(callback?: () => void): void {
      client.refreshes += 1;
      callback?.();
    },
    nodes: () => [node(7001), node(7002)],
    pipeline: pipelineTo('slot map'),
    eval(script: string, _numkeys: number, ...keysAndArgs: string[]): Promise<unknown> {
      sent.push(`eval ${keysAndArgs[0] ?? ''}`);
      return Promise.resolve(script.includes('INCR') ? ['granted', '7'] : 1);
    },
    evalsha: (): Promise<unknown> => Promise.reject(new Error('NOSCRIPT')),
    get: (): Promise<null> => Promise.resolve(null),
    info: (): Promise<string> => Promise.resolve(replicaInfo),
    set: (): Promise<string> => Promise.resolve('OK'),
    del: (): Promise<number> => Promise.resolve(0),
  };
  return { client, sent };
}

const error = (message: string): Reply => [new Error(message), null];
const firstError = (results: readonly Reply[]): Error | null | undefined => results[0]?.[0];
/** What a node that serves the key answers: the script's reply, 1 for WAIT, the INFO text. */
const served = (commands: string[]): Reply[] =>
  commands.map((command): Reply => {
    const name = command.split(' ')[0];
    return [null, name === 'wait' ? 1 : name === 'info' ? replicaInfo : 'ok'];
  });
/** What a node that does not serve the key answers: `redirection` for the keyed command, the rest from the wrong node. */
const redirected = (redirection: string, commands: string[]): Reply[] =>
  commands.map((command, index): Reply =>
    index === 0 ? error(redirection) : [null, command.startsWith('wait') ? 0 : ''],
  );

const getAndInfo = (pipeline: { get(key: string): unknown; info(section: string): unknown }): void => {
  pipeline.get('{orders}');
  pipeline.info('replication');
};

afterEach(() => {
  vi.useRealTimers();
});

describe('execRouted follows the redirections of a pipeline, as ioredis follows a lone command', () => {
  it('sends the whole pipeline again to the node a MOVED names, and asks for a new slot map', async () => {
    const { client, sent } = fakeCluster((destination, commands) =>
      destination === 'slot map' ? redirected('MOVED 3999 127.0.0.1:7002', commands) : served(commands),
    );
    const results = await execRouted(client, () => client.pipeline(), getAndInfo);
    expect(results).toEqual([
      [null, 'ok'],
      [null, replicaInfo],
    ]);
    expect(sent).toEqual([
      'slot map: get {orders}, info replication',
      '127.0.0.1:7002: get {orders}, info replication',
    ]);
    expect(client.refreshes).toBe(1);
  });

  it('sends ASKING and the pipeline to the node an ASK names, and leaves ASKING out of the replies', async () => {
    const { client, sent } = fakeCluster((destination, commands) =>
      destination === 'slot map'
        ? redirected('ASK 3999 127.0.0.1:7001', commands)
        : commands.map((command): Reply => [null, command === 'asking' ? 'OK' : 'ok']),
    );
    const results = await execRouted(client, () => client.pipeline(), getAndInfo);
    expect(results).toEqual([
      [null, 'ok'],
      [null, 'ok'],
    ]);
    expect(sent).toEqual([
      'slot map: get {orders}, info replication',
      '127.0.0.1:7001: asking, get {orders}, info replication',
    ]);
    expect(client.refreshes).toBe(0);
  });

  it('maps the address of a redirection through natMap, an object or a function, to the connection', async () => {
    for (const natMap of [
      { '10.0.0.2:6379': { host: '127.0.0.1', port: 7002 } },
      (key: string) => (key === '10.0.0.2:6379' ? { host: '127.0.0.1', port: 7002 } : null),
    ]) {
      const { client, sent } = fakeCluster(
        (destination, commands) =>
          destination === 'slot map' ? redirected('ASK 3999 10.0.0.2:6379', commands) : served(commands),
        { natMap },
      );
      await execRouted(client, () => client.pipeline(), getAndInfo);
      expect(sent.at(-1)).toBe('127.0.0.1:7002: asking, get {orders}, info replication');
    }
  });

  it('sends the pipeline again through the slot map after retryDelayOnTryAgain on TRYAGAIN', async () => {
    let tries = 0;
    const { client, sent } = fakeCluster(
      (_destination, commands) =>
        (tries += 1) < 3
          ? redirected('TRYAGAIN Multiple keys request during rehashing of slot', commands)
          : served(commands),
      { retryDelayOnTryAgain: 30 },
    );
    const startedAt = performance.now();
    await execRouted(client, () => client.pipeline(), getAndInfo);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(55);
    expect(sent).toEqual(Array.from({ length: 3 }, () => 'slot map: get {orders}, info replication'));
  });

  it('waits for the new slot map when a MOVED names a node it has no connection to, then routes through it', async () => {
    const { client, sent } = fakeCluster((_destination, commands) =>
      client.refreshes === 0 ? redirected('MOVED 3999 127.0.0.1:7003', commands) : served(commands),
    );
    await execRouted(client, () => client.pipeline(), getAndInfo);
    expect(sent).toEqual(Array.from({ length: 2 }, () => 'slot map: get {orders}, info replication'));
    expect(client.refreshes).toBe(1);
  });

  it('gives up after maxRedirections, or before a TRYAGAIN delay would pass the command timeout, with an error saying so', async () => {
    const always = (message: string) => (_destination: Destination, commands: string[]) =>
      redirected(message, commands);
    const moving = fakeCluster(always('MOVED 3999 127.0.0.1:7001'), { maxRedirections: 5 });
    const gaveUp = firstError(await execRouted(moving.client, () => moving.client.pipeline(), getAndInfo));
    expect(gaveUp?.message).toMatch(
      /^Redis Cluster redirected this command 5 times .*\(last: MOVED 3999 127\.0\.0\.1:7001\), and it was not run.*Nothing was written/u,
    );
    expect(moving.sent).toHaveLength(5);

    // On a fake clock: a loaded machine's late timers would otherwise leave time for one retry fewer.
    vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] });
    const splitting = fakeCluster(always('TRYAGAIN Multiple keys request during rehashing of slot'), {
      retryDelayOnTryAgain: 40,
      redisOptions: { commandTimeout: 100 },
    });
    const routing = execRouted(splitting.client, () => splitting.client.pipeline(), getAndInfo);
    await vi.runAllTimersAsync();
    const timedOut = firstError(await routing);
    expect(timedOut?.message).toMatch(/redirected this command 3 times/u);
    expect(() => {
      assertRouted(splitting.client, [[timedOut ?? null, null]]);
    }).toThrow(/redirected this command 3 times/u);
  });

  it("leaves a redirection as the reply when mayResend says no, and a standalone client's as it came", async () => {
    const { client, sent } = fakeCluster((_destination, commands) => redirected('MOVED 3999 127.0.0.1:7002', commands));
    const notResent = firstError(
      await execRouted(
        client,
        () => client.pipeline(),
        getAndInfo,
        () => false,
      ),
    );
    expect(notResent?.message).toBe('MOVED 3999 127.0.0.1:7002');
    client.isCluster = false;
    const standalone = firstError(await execRouted(client, () => client.pipeline(), getAndInfo));
    expect(standalone?.message).toBe('MOVED 3999 127.0.0.1:7002');
    expect(sent).toHaveLength(2);
  });
});

describe('assertRouted', () => {
  it("passes a pipeline whose routing command answered, and throws a redirected one's error after asking for a new slot map", () => {
    const client = { refreshes: 0, refreshSlotsCache: () => (client.refreshes += 1) };
    expect(() => {
      assertRouted(client, [
        [null, -2],
        [null, 1],
      ]);
    }).not.toThrow();
    expect(() => {
      assertRouted(client, [error('MOVED 3999 127.0.0.1:7001'), [null, 1]]);
    }).toThrow(/^MOVED 3999/u);
    expect(() => {
      assertRouted(client, [error('ASK 3999 127.0.0.1:7002')]);
    }).toThrow(/^ASK/u);
    expect(client.refreshes).toBe(2);
    expect(() => {
      assertRouted(client, [error('CLUSTERDOWN The cluster is down')]);
    }).toThrow(/CLUSTERDOWN/u);
    expect(() => {
      assertRouted({}, null);
    }).toThrow(/no reply to the command that routes it/u);
    expect(client.refreshes).toBe(2);
  });
});

describe('grants and fenced writes whose slot is migrating', () => {
  it('confirm a grant with the WAIT of the node that holds the lease now, never with the redirected one', async () => {
    const { client, sent } = fakeCluster((destination, commands) =>
      destination === 'slot map' ? redirected('ASK 3999 127.0.0.1:7002', commands) : served(commands),
    );
    const store = new RedisLeaseStore(client, 'lease:', { replicas: 1, timeoutMs: 10 });
    await expect(store.acquire('orders', 'node-a', 10_000)).resolves.toBe(7n);
    expect(sent).toEqual([
      'eval lease:{orders}:lease',
      'slot map: get lease:{orders}:lease, wait 1',
      '127.0.0.1:7002: asking, get lease:{orders}:lease, wait 1',
    ]);
  });

  it("send an 'auto' grant's script and its INFO again together, and its WAIT to the node that ran them", async () => {
    const { client, sent } = fakeCluster((destination, commands) =>
      destination === 'slot map'
        ? redirected('ASK 3999 127.0.0.1:7002', commands)
        : commands.map((command): Reply => [null, command === 'eval' ? ['granted', '7'] : served([command])[0]?.[1]]),
    );
    const store = new RedisLeaseStore(client, 'lease:', { replicas: 'auto', timeoutMs: 10 });
    await expect(store.acquire('orders', 'node-a', 10_000)).resolves.toBe(7n);
    expect(sent).toEqual([
      'slot map: eval, info replication',
      '127.0.0.1:7002: asking, eval, info replication',
      'slot map: get lease:{orders}:lease, wait 1',
      '127.0.0.1:7002: asking, get lease:{orders}:lease, wait 1',
    ]);
  });

  it('hand a grant back when the redirections outlast maxRedirections, though the wrong node WAIT answered 1', async () => {
    const { client, sent } = fakeCluster(
      (_destination, commands) =>
        commands.map((_command, index): Reply => (index === 0 ? error('MOVED 3999 127.0.0.1:7001') : [null, 1])),
      { maxRedirections: 2 },
    );
    const store = new RedisLeaseStore(client, 'lease:', { replicas: 1, timeoutMs: 10 });
    await expect(store.acquire('orders', 'node-a', 10_000)).rejects.toThrow(
      /Lease "lease:\{orders\}:lease" was not taken: token 7 reached no of the 1 replica .*redirected this command 2 times/u,
    );
    expect(sent.at(-1)).toBe('eval lease:{orders}:lease');
  });

  it('send a fenced write and its INFO again together, and its WAIT to the node that ran it', async () => {
    const { client, sent } = fakeCluster((destination, commands) =>
      destination === 'slot map'
        ? redirected('MOVED 3999 127.0.0.1:7001', commands)
        : commands.map((command): Reply => [
            null,
            command.startsWith('wait') ? 1 : command.startsWith('info') ? replicaInfo : 'accepted',
          ]),
    );
    const storage = new RedisCheckpointStorage(client);
    await storage.save('{orders}', 'cp-1', CheckpointWriteCondition.notOlderThan(7));
    // The write and the INFO read right behind it (ADR 1105), then the WAIT for the replica that INFO lists.
    expect(sent.map((line) => line.replace(/[0-9a-f]{64}/u, '<sha256>'))).toEqual([
      'slot map: eval, info replication',
      '127.0.0.1:7001: eval, info replication',
      'slot map: get checkpoint-fencing:version:{orders}<sha256>, wait 1',
      '127.0.0.1:7001: get checkpoint-fencing:version:{orders}<sha256>, wait 1',
    ]);
  });

  it('refuse to send a redirected fenced write again once a later call on its keys was sent: it would land after it', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { client, sent } = fakeCluster((destination, commands) =>
      destination === 'slot map' ? redirected('MOVED 3999 127.0.0.1:7001', commands) : served(commands),
    );
    const exec = client.pipeline;
    client.pipeline = () => {
      const pipeline = exec();
      const reply = pipeline.exec;
      // The first write's reply arrives only after the later delete was sent.
      pipeline.exec = () => held.then(reply);
      return pipeline;
    };
    const storage = new RedisCheckpointStorage(client, { waitForReplicas: { replicas: 1, timeoutMs: 10 } });
    const written = storage.save('{orders}', 'cp-1', CheckpointWriteCondition.notOlderThan(7));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const deleted = storage.delete('{orders}');
    await new Promise((resolve) => setTimeout(resolve, 5));
    release();
    await expect(written).rejects.toThrow(
      /^The write was not run: its key's Cluster slot is being moved to another master, and a command this storage was asked for later on the same keys ran meanwhile.*Nothing was written; write again/u,
    );
    await deleted;
    expect(sent.filter((line) => line.includes('eval'))).toHaveLength(1);
  });
});

describe('renewals whose slot is migrating', () => {
  /** Every slot on one master (7001) and its replica, so that both scripts go in one pipeline. */
  const onOneMaster = { slots: Array.from({ length: 16_384 }, () => ['127.0.0.1:7001', '127.0.0.1:7101']) };
  const leases = [
    { subscriptionId: 'orders', owner: 'node-a', token: 1n },
    { subscriptionId: 'payments', owner: 'node-a', token: 2n },
  ];

  it("send the redirected slot's script alone again, with ASKING to the node an ASK names; the other slot's stands", async () => {
    const { client, sent } = fakeCluster((destination, commands) =>
      destination === 'slot map'
        ? commands.map((_command, index): Reply => (index === 0 ? error('ASK 3999 127.0.0.1:7002') : [null, [1]]))
        : commands.map((command): Reply => [null, command === 'asking' ? 'OK' : [1]]),
    );
    const store = new RedisLeaseStore(Object.assign(client, onOneMaster), 'lease:', undefined);
    await expect(store.refreshAll(leases, 1_000)).resolves.toEqual([true, true]);
    expect(sent).toEqual(['slot map: eval, eval', 'slot map: eval', '127.0.0.1:7002: asking, eval']);
  });

  it('go in one pipeline per group of nodes the slot map lists, as ioredis refuses a pipeline across groups', async () => {
    const { client, sent } = fakeCluster((_destination, commands) => commands.map((): Reply => [null, [1]]));
    // After a MOVED, ioredis lists the slot's new master alone, without its replicas, until the slot map is reloaded.
    const slots = [...onOneMaster.slots];
    slots[clusterHashSlot('lease:{orders}:lease')] = ['127.0.0.1:7001'];
    const store = new RedisLeaseStore(Object.assign(client, { slots }), 'lease:', undefined);
    await expect(store.refreshAll(leases, 1_000)).resolves.toEqual([true, true]);
    expect(sent).toEqual(['slot map: eval', 'slot map: eval']);
  });

  it('send each script alone when ioredis refuses their pipeline for slots its map no longer groups together', async () => {
    const { client, sent } = fakeCluster((_destination, commands) => commands.map((): Reply => [null, [1]]));
    const pipeline = client.pipeline;
    client.pipeline = () => {
      const refused = pipeline();
      refused.exec = () =>
        Promise.reject(new Error('All keys in the pipeline should belong to the same slots allocation group'));
      client.pipeline = pipeline;
      return refused;
    };
    const store = new RedisLeaseStore(Object.assign(client, onOneMaster), 'lease:', undefined);
    await expect(store.refreshAll(leases, 1_000)).resolves.toEqual([true, true]);
    expect(sent).toEqual(['slot map: eval', 'slot map: eval']);
  });

  it('fail the renewal with the error saying so when the redirections outlast maxRedirections', async () => {
    const { client } = fakeCluster(
      (_destination, commands) => commands.map((): Reply => error('MOVED 3999 127.0.0.1:7001')),
      { maxRedirections: 2 },
    );
    const store = new RedisLeaseStore(Object.assign(client, onOneMaster), 'lease:', undefined);
    await expect(store.refreshAll(leases, 1_000)).rejects.toThrow(/redirected this command 2 times/u);
  });
});
