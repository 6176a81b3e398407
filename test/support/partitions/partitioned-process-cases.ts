import { afterEach, expect, it } from 'vitest';
import { eventually } from '../leases/event-log.js';
import {
  PartitionNodeProcesses,
  type PartitionNode,
  type PartitionNodePostgres,
  type PartitionNodeSettings,
} from './partition-node-processes.js';

/** What one test's nodes run on: a redis-server of its own for the log (and, on Redis, everything else). */
export interface PartitionProcessStores {
  /** The redis-server holding the log and the records of handled events. */
  readonly port: number;
  /** Storage, leases, membership and projection on PostgreSQL; on the redis-server when absent. */
  readonly postgres?: PartitionNodePostgres;
  /** Restarts the store of the checkpoints, leases and members. */
  restartStore(): Promise<void>;
  stop(): Promise<void>;
}

/** A backend of the node processes' cases. */
export interface PartitionProcessBackend {
  /** Starts one test's stores; `durable`: they keep what they hold across {@link PartitionProcessStores.restartStore}. */
  start(durable: boolean): Promise<PartitionProcessStores>;
  /** Whether to register the case that restarts the store. */
  readonly restartsStore: boolean;
}

const partitions = 8;
const leaseTimeMs = 1_500;
const memberTimeMs = 900;
const drainTimeoutMs = 400;
const slowMs = 4_000;

let stores: PartitionProcessStores | undefined;
let nodes: PartitionNodeProcesses | undefined;
let stopLoad: (() => Promise<void>) | undefined;

let backend: PartitionProcessBackend;

async function setUp(overrides: Partial<PartitionNodeSettings> = {}, durable = false): Promise<PartitionNodeProcesses> {
  stores = await backend.start(durable);
  nodes = new PartitionNodeProcesses({
    port: stores.port,
    ...(stores.postgres === undefined ? {} : { postgres: stores.postgres }),
    partitions,
    leaseTimeMs,
    memberTimeMs,
    drainTimeoutMs,
    handlerMs: 1,
    slowMs,
    ...overrides,
  });
  return nodes;
}

/**
 * Starts `names` and waits until they own every partition between them, their counts at most one apart: the target,
 * not a state on the way to it (the first node to start takes every partition, then hands some over).
 */
async function balanced<const Names extends readonly string[]>(
  cluster: PartitionNodeProcesses,
  names: Names,
): Promise<{ [K in keyof Names]: PartitionNode }> {
  const started = await Promise.all(names.map((name) => cluster.start(name)));
  await eventually(`${names.join(', ')} own every partition between them, evenly`, () => {
    const counts = started.map((node) => node.owned.length);
    return cluster.own(started) && Math.max(...counts) - Math.min(...counts) <= 1;
  });
  return started as { [K in keyof Names]: PartitionNode };
}

/** Appends 25 events every 25 ms (1,000 a second) until the returned function is called. */
function load(cluster: PartitionNodeProcesses): void {
  let appending = Promise.resolve();
  const timer = setInterval(() => {
    // An append refused while the store restarts is left out of the log, and the load goes on.
    appending = appending.then(() => cluster.append(25)).catch(() => undefined);
  }, 25);
  stopLoad = async () => {
    clearInterval(timer);
    await appending;
  };
}

/** Every event of the log handled at least once, and every partition's checkpoint at its last event. */
async function everyEventHandled(cluster: PartitionNodeProcesses, except: (position: number) => boolean = () => false) {
  const length = cluster.log().length;
  await cluster.checkpointsReachLastEvents(except);
  const handled = new Set((await cluster.handled()).map(({ position }) => position));
  const missing = Array.from({ length }, (_, index) => index + 1).filter(
    (position) => !handled.has(position) && !except(position),
  );
  expect(missing).toEqual([]);
}

/**
 * Registers the cases of issue 36's node processes (three nodes of one PartitionedSubscription, killed, stopped,
 * terminated, started under load) on `on`, in the calling `describe`; every node's handled events and refusals are
 * recorded in the log's Redis and on stdout, and the checks read them back.
 */
export function itRunsPartitionedProcesses(on: PartitionProcessBackend): void {
  backend = on;
  afterEach(async () => {
    await stopLoad?.();
    stopLoad = undefined;
    await nodes?.close();
    nodes = undefined;
    await stores?.stop();
    stores = undefined;
  });
  it('kill -9 mid-batch: the others own its partitions within the lease time + 2 s, and every event is handled', async () => {
    const cluster = await setUp();
    await cluster.append(4_000);
    const [a, b, c] = await balanced(cluster, ['node-a', 'node-b', 'node-c']);
    await eventually('node-c is mid-batch', async () =>
      (await cluster.handled()).some(({ nodeId }) => nodeId === 'node-c'),
    );
    c.child.kill('SIGKILL');
    const killedAt = Date.now();
    await eventually('node-a and node-b own every partition', () => cluster.own([a, b]));
    const movedAfterMs = Date.now() - killedAt;
    console.info(`kill -9: every partition owned again ${movedAfterMs} ms after the kill (lease ${leaseTimeMs} ms)`);
    expect(movedAfterMs).toBeLessThan(leaseTimeMs + 2_000);
    await everyEventHandled(cluster);
  });

  it('stopped beyond its lease, then continued: its late write is refused, and it stops that partition', async () => {
    const cluster = await setUp();
    load(cluster);
    const [a, b, c] = await balanced(cluster, ['node-a', 'node-b', 'node-c']);
    b.child.kill('SIGUSR2');
    await eventually('node-b stopped itself mid-event', () => b.lines.some((line) => line.startsWith('freezing')));
    const [, partition = -1, token = -1] = (b.lines.find((line) => line.startsWith('freezing')) ?? '')
      .split(' ')
      .map(Number);
    await eventually(`another node owns partition ${partition}`, () =>
      [a, c].some((node) => node.owned.includes(partition)),
    );
    await eventually(`the new owner wrote partition ${partition}'s projection`, async () =>
      (await cluster.handled()).some((event) => event.partition === partition && event.token > BigInt(token)),
    );
    b.child.kill('SIGCONT');
    await eventually("node-b's late write is refused", () => b.lines.includes(`REFUSED ${partition} ${token}`));
    const refusedAt = b.arrivals[b.lines.indexOf(`REFUSED ${partition} ${token}`)] ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const late = (await cluster.handled()).filter(
      (event) =>
        event.nodeId === 'node-b' &&
        event.partition === partition &&
        event.token === BigInt(token) &&
        event.at >= refusedAt,
    );
    expect(late).toEqual([]);
    await stopLoad?.();
    await everyEventHandled(cluster);
  });

  it('SIGTERM hands its partitions over within drain + membership time + 1 s, with no wait for its lease', async () => {
    const longLeaseMs = 8_000;
    const cluster = await setUp({ leaseTimeMs: longLeaseMs });
    load(cluster);
    const [a, b, c] = await balanced(cluster, ['node-a', 'node-b', 'node-c']);
    c.child.kill('SIGTERM');
    const terminatedAt = Date.now();
    await eventually('node-a and node-b own every partition', () => cluster.own([a, b]));
    const movedAfterMs = Date.now() - terminatedAt;
    expect(await c.exited).toBe(0);
    console.info(
      `SIGTERM: every partition owned again ${movedAfterMs} ms after it (lease ${longLeaseMs} ms); ${c.lines.find((line) => line.startsWith('left'))}`,
    );
    expect(movedAfterMs).toBeLessThan(drainTimeoutMs + memberTimeMs + 1_000);
    await stopLoad?.();
    await everyEventHandled(cluster);
  });

  it('a node joining under load moves some partitions; the others keep their owner and token and do not pause', async () => {
    const cluster = await setUp();
    load(cluster);
    const [a, b] = await balanced(cluster, ['node-a', 'node-b']);
    const before = new Map([a, b].flatMap((node) => node.owned.map((partition) => [partition, node.nodeId] as const)));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const joinedAt = Date.now();
    const c = await cluster.start('node-c');
    await eventually('the three own every partition', () => cluster.own([a, b, c]));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const window = (await cluster.handled()).filter((event) => event.at >= joinedAt - 200);
    await stopLoad?.();
    const moved = c.owned;
    const kept = [...before.keys()].filter((partition) => !moved.includes(partition));
    expect(moved.length).toBeGreaterThan(0);
    expect(moved.length).toBeLessThanOrEqual(Math.ceil(partitions / 3) + 1);
    const gaps = new Map<number, number>();
    for (const partition of before.keys()) {
      const times = window.filter((event) => event.partition === partition).map((event) => event.at);
      gaps.set(partition, Math.max(0, ...times.slice(1).map((at, index) => at - (times[index] ?? at))));
    }
    console.info(
      `join: moved ${moved.join(',')} (longest pause ${Math.max(...moved.map((p) => gaps.get(p) ?? 0))} ms); kept ` +
        `${kept.join(',')} (longest pause ${Math.max(...kept.map((p) => gaps.get(p) ?? 0))} ms)`,
    );
    for (const partition of kept) {
      const events = window.filter((event) => event.partition === partition);
      // Never handed over: one owner and one token throughout, and events kept coming.
      expect(new Set(events.map((event) => `${event.nodeId} ${event.token}`)), `partition ${partition}`).toEqual(
        new Set([`${before.get(partition)} ${events[0]?.token}`]),
      );
      expect(gaps.get(partition), `partition ${partition}`).toBeLessThan(leaseTimeMs);
    }
    await everyEventHandled(cluster);
  });

  it('a node started with another partition count is refused, naming both counts', async () => {
    const cluster = await setUp();
    await balanced(cluster, ['node-a']);
    const other = await cluster.start('node-x', { partitions: 16 });
    expect(await other.exited).toBe(3);
    expect(other.lines.find((line) => line.startsWith('refused '))).toMatch(
      /^refused .*"node-x".* 16 partitions: .* recorded with 8.* partitions: 8/u,
    );
  });

  it('a node id that is live already is refused', async () => {
    const cluster = await setUp();
    await balanced(cluster, ['node-a']);
    const twin = await cluster.start('node-a');
    expect(await twin.exited).toBe(3);
    expect(twin.lines.find((line) => line.startsWith('refused '))).toMatch(
      /^refused .*node id "node-a" is a live member already/u,
    );
  });

  // Registered only where the test can restart the store: never a skipped case.
  if (on.restartsStore) {
    it('the membership store restarting: the nodes own every partition again and every event is handled', async () => {
      const cluster = await setUp({}, true);
      load(cluster);
      const started = await balanced(cluster, ['node-a', 'node-b', 'node-c']);
      await stores?.restartStore();
      const restartedAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, leaseTimeMs));
      await eventually('the three own every partition again', () => cluster.own(started), 30_000);
      console.info(`store restart: balanced again ${Date.now() - restartedAt} ms after the restart`);
      await stopLoad?.();
      await everyEventHandled(cluster);
    });
  }

  it('a poison event stalls its own partition only', async () => {
    const cluster = await setUp();
    await cluster.append(600);
    await cluster.append(1, 'poison');
    const poisonAt = cluster.log().length;
    await cluster.append(600);
    const poisoned = cluster.partitionOf('poison');
    await balanced(cluster, ['node-a', 'node-b', 'node-c']);
    const log = cluster.log();
    const inPoisoned = (position: number): boolean =>
      position >= poisonAt && cluster.partitionOf((log[position - 1] ?? '').split(':')[0] ?? '') === poisoned;
    await everyEventHandled(cluster, inPoisoned);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await cluster.checkpoints())[poisoned]).toBeLessThan(poisonAt);
    expect((await cluster.handled()).filter((event) => inPoisoned(event.position))).toEqual([]);
  });

  it('a drain that times out: SIGTERM during a slow event hands its partition over after drainTimeoutMs, and the event is handled again', async () => {
    const cluster = await setUp();
    const [a, b] = await balanced(cluster, ['node-a', 'node-b']);
    const partition = cluster.partitionOf('slow');
    const owner = a.owned.includes(partition) ? a : b;
    const other = owner === a ? b : a;
    await cluster.append(1, 'slow');
    const position = cluster.log().length;
    await eventually(`${owner.nodeId} is in the slow event`, () =>
      owner.lines.includes(`slow ${partition} ${position}`),
    );
    owner.child.kill('SIGTERM');
    const terminatedAt = Date.now();
    await eventually(`${other.nodeId} owns partition ${partition}`, () => other.owned.includes(partition));
    const movedAfterMs = Date.now() - terminatedAt;
    console.info(
      `drain timeout: partition ${partition} moved ${movedAfterMs} ms after SIGTERM with a ${slowMs} ms event in ` +
        `flight (drain ${drainTimeoutMs} ms, lease ${leaseTimeMs} ms)`,
    );
    expect(movedAfterMs).toBeGreaterThanOrEqual(drainTimeoutMs);
    expect(movedAfterMs).toBeLessThan(drainTimeoutMs + memberTimeMs + 1_000);
    await eventually(`${other.nodeId} handles the slow event again`, async () =>
      (await cluster.handled()).some((event) => event.position === position && event.nodeId === other.nodeId),
    );
  });
}
