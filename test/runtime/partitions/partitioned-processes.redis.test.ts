import { eventually } from '../../support/leases/event-log.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  PartitionNodeProcesses,
  type PartitionNode,
  type PartitionNodeSettings,
} from '../../support/partitions/partition-node-processes.js';
import { startRedisServer, type RedisServerProcess } from '../../support/redis/index.js';

// Issue 36: node processes of one PartitionedSubscription on a redis-server of each test's own: killed, refused,
// poisoned and terminated mid-event. Every node's handled events and refusals are recorded in Redis
// and on stdout; the checks read them back.

const partitions = 8;
const leaseTimeMs = 1_500;
const memberTimeMs = 900;
const drainTimeoutMs = 400;
const slowMs = 4_000;

let server: RedisServerProcess | undefined;
let nodes: PartitionNodeProcesses | undefined;

afterEach(async () => {
  await nodes?.close();
  nodes = undefined;
  await server?.stop();
  server = undefined;
});

async function setUp(
  overrides: Partial<PartitionNodeSettings> = {},
  serverArgs: readonly string[] = [],
): Promise<PartitionNodeProcesses> {
  server = await startRedisServer({ args: serverArgs });
  nodes = new PartitionNodeProcesses({
    port: server.port,
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

/** Starts `names` and waits until they own every partition between them. */
async function balanced(cluster: PartitionNodeProcesses, names: readonly string[]): Promise<PartitionNode[]> {
  const started = await Promise.all(names.map((name) => cluster.start(name)));
  await eventually(`${names.join(', ')} own every partition between them`, () => cluster.own(started));
  return started;
}

/** Every event of the log handled at least once, and every partition's checkpoint at its last event. */
async function everyEventHandled(cluster: PartitionNodeProcesses, except: (position: number) => boolean = () => false) {
  const length = await cluster.redis.llen('log');
  await cluster.checkpointsReachLastEvents(except);
  const handled = new Set((await cluster.handled()).map(({ position }) => position));
  const missing = Array.from({ length }, (_, index) => index + 1).filter(
    (position) => !handled.has(position) && !except(position),
  );
  expect(missing).toEqual([]);
}

describe('PartitionedSubscription processes on Redis', { timeout: 90_000 }, () => {
  it('kill -9 mid-batch: the others own its partitions within the lease time + 2 s, and every event is handled', async () => {
    const cluster = await setUp();
    await cluster.append(4_000);
    const [a, b, c] = (await balanced(cluster, ['node-a', 'node-b', 'node-c'])) as [
      PartitionNode,
      PartitionNode,
      PartitionNode,
    ];
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

  it('a poison event stalls its own partition only', async () => {
    const cluster = await setUp();
    await cluster.append(600);
    await cluster.append(1, 'poison');
    const poisonAt = await cluster.redis.llen('log');
    await cluster.append(600);
    const poisoned = cluster.partitionOf('poison');
    await balanced(cluster, ['node-a', 'node-b', 'node-c']);
    const log = await cluster.redis.lrange('log', 0, -1);
    const inPoisoned = (position: number): boolean =>
      position >= poisonAt && cluster.partitionOf((log[position - 1] ?? '').split(':')[0] ?? '') === poisoned;
    await everyEventHandled(cluster, inPoisoned);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await cluster.checkpoints())[poisoned]).toBeLessThan(poisonAt);
    expect((await cluster.handled()).filter((event) => inPoisoned(event.position))).toEqual([]);
  });

  it('a drain that times out: SIGTERM during a slow event hands its partition over after drainTimeoutMs, and the event is handled again', async () => {
    const cluster = await setUp();
    const [a, b] = (await balanced(cluster, ['node-a', 'node-b'])) as [PartitionNode, PartitionNode];
    const partition = cluster.partitionOf('slow');
    const owner = a.owned.includes(partition) ? a : b;
    const other = owner === a ? b : a;
    await cluster.append(1, 'slow');
    const position = await cluster.redis.llen('log');
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
});
