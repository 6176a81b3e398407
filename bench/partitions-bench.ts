import { eventually } from '../test/support/leases/event-log.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  PartitionNodeProcesses,
  type PartitionNode,
  type PartitionNodeSettings,
} from '../test/support/partitions/partition-node-processes.js';
import { startRedisServer, type RedisServerProcess } from '../test/support/redis/index.js';

// npm run bench:partitions (issue 36): node processes of one PartitionedSubscription on one redis-server, run from
// dist/. Scaling: a preloaded shared log, a handler burning 1 ms of CPU an event, P = 32, 1, 2 and 4 processes in
// each round, several rounds; events a second, the ratios, CPU per event. Rebalance: after kill -9 (20 kills) and
// after SIGTERM, until every partition is owned again. Coordination: commands a second per idle node at P = 16 and 64.

const runtime = fileURLToPath(new URL('../runtime', import.meta.url));
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
const events = Number(process.env['BENCH_EVENTS'] ?? 12_000);
const kills = Number(process.env['BENCH_KILLS'] ?? 20);
const base: Omit<PartitionNodeSettings, 'nodeId' | 'port'> = {
  partitions: 32,
  leaseTimeMs: 1_500,
  memberTimeMs: 900,
  drainTimeoutMs: 400,
  handlerMs: 1,
  slowMs: 0,
  record: false,
  checkpointEvery: { events: 100, ms: 200 },
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One run on a fresh server: `run` gets the nodes' harness; both are gone when it settles. */
async function onFreshServer<T>(
  settings: Partial<PartitionNodeSettings>,
  run: (nodes: PartitionNodeProcesses, server: RedisServerProcess) => Promise<T>,
): Promise<T> {
  const server = await startRedisServer();
  const nodes = new PartitionNodeProcesses({ ...base, ...settings, port: server.port }, runtime);
  try {
    return await run(nodes, server);
  } finally {
    await nodes.close();
    await server.stop();
  }
}

/** CPU time the process has used, in milliseconds (user + system, from /proc). */
function cpuMs(node: PartitionNode): number {
  const fields =
    readFileSync(`/proc/${node.child.pid ?? 0}/stat`, 'utf8')
      .split(') ')[1]
      ?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1_000) / 100;
}

/** Events a second with `count` processes over a preloaded log, and CPU milliseconds per event. */
async function throughput(count: number): Promise<{ eventsPerSecond: number; cpuPerEventMs: number }> {
  return onFreshServer({}, async (nodes) => {
    await nodes.append(events, 256);
    // Joined first, so that the run times the handling, not the settling of the membership.
    const started = await Promise.all(Array.from({ length: count }, (_, index) => nodes.start(`node-${index}`)));
    const startedAt = performance.now();
    await nodes.checkpointsReachLastEvents(() => false, 600_000);
    const seconds = (performance.now() - startedAt) / 1_000;
    const cpu = started.reduce((sum, node) => sum + cpuMs(node), 0);
    return { eventsPerSecond: events / seconds, cpuPerEventMs: cpu / events };
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function spread(values: readonly number[]): string {
  return `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
}

const only = process.argv[2] === '--coordination' ? 'coordination' : undefined;
if (only === undefined) {
  console.log(`bench:partitions: ${rounds} rounds of ${events} events, P = ${base.partitions}, a 1 ms CPU handler`);
  const perCount = new Map<number, number[]>([
    [1, []],
    [2, []],
    [4, []],
  ]);
  const ratios = { twoOverOne: [] as number[], fourOverTwo: [] as number[] };
  const cpu: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const measured = new Map<number, number>();
    for (const count of [1, 2, 4]) {
      const result = await throughput(count);
      measured.set(count, result.eventsPerSecond);
      perCount.get(count)?.push(result.eventsPerSecond);
      cpu.push(result.cpuPerEventMs);
    }
    ratios.twoOverOne.push((measured.get(2) ?? 0) / (measured.get(1) ?? 1));
    ratios.fourOverTwo.push((measured.get(4) ?? 0) / (measured.get(2) ?? 1));
    console.log(
      `  round ${round + 1}: ${[1, 2, 4].map((count) => `${count} → ${(measured.get(count) ?? 0).toFixed(0)} events/s`).join(', ')}`,
    );
  }
  for (const [count, values] of perCount) {
    console.log(`  ${count} process(es): median ${median(values).toFixed(0)} events/s (spread ${spread(values)})`);
  }
  console.log(
    `  ratio 2/1: median ${median(ratios.twoOverOne).toFixed(2)} (${Math.min(...ratios.twoOverOne).toFixed(2)}–${Math.max(...ratios.twoOverOne).toFixed(2)}); ` +
      `ratio 4/2: median ${median(ratios.fourOverTwo).toFixed(2)} (${Math.min(...ratios.fourOverTwo).toFixed(2)}–${Math.max(...ratios.fourOverTwo).toFixed(2)}); ` +
      `CPU per event, all processes: median ${median(cpu).toFixed(2)} ms`,
  );

  // Rebalance: three nodes under a light load; kill one, time until the others own every partition, start another.
  const rebalance = await onFreshServer({}, async (nodes) => {
    // Cleared once the kills are done: an object, so that the loop sees the change.
    const load = { appending: true };
    const appender = (async () => {
      while (load.appending) {
        await nodes.append(10, 64);
        await sleep(20);
      }
    })();
    let next = 0;
    const live = await Promise.all(Array.from({ length: 3 }, () => nodes.start(`node-${next++}`)));
    await eventually('three nodes own every partition', () => nodes.own(live));
    const afterKill: number[] = [];
    const afterTerm: number[] = [];
    for (let index = 0; index < kills + 5; index += 1) {
      const victim = live.shift() as PartitionNode;
      const signal = index < kills ? 'SIGKILL' : 'SIGTERM';
      victim.child.kill(signal);
      const at = performance.now();
      await eventually('the two left own every partition', () => nodes.own(live), 30_000);
      (signal === 'SIGKILL' ? afterKill : afterTerm).push(performance.now() - at);
      live.push(await nodes.start(`node-${next++}`));
      await eventually('three nodes own every partition again', () => nodes.own(live), 30_000);
    }
    load.appending = false;
    await appender;
    return { afterKill, afterTerm };
  });
  const p95 = (values: readonly number[]): number =>
    [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1] ?? Number.NaN;
  console.log(
    `  rebalance after kill -9: p95 ${p95(rebalance.afterKill).toFixed(0)} ms, median ${median(rebalance.afterKill).toFixed(0)} ms over ${rebalance.afterKill.length} kills ` +
      `(lease ${base.leaseTimeMs} ms: bound lease + 2 s = ${base.leaseTimeMs + 2_000} ms); after SIGTERM: p95 ` +
      `${p95(rebalance.afterTerm).toFixed(0)} ms, median ${median(rebalance.afterTerm).toFixed(0)} ms over ${rebalance.afterTerm.length} ` +
      `(bound drain + 1 s = ${base.drainTimeoutMs + 1_000} ms)`,
  );
}

// Coordination: 4 idle nodes (no events), commands the server ran in 10 s, per node and second, at P = 16 and 64.
for (const partitions of [16, 64]) {
  const perNodeSecond = await onFreshServer({ partitions }, async (nodes) => {
    const started = await Promise.all(Array.from({ length: 4 }, (_, index) => nodes.start(`node-${index}`)));
    await eventually('four nodes own every partition', () => nodes.own(started), 30_000);
    await sleep(2_000);
    const calls = async (): Promise<Map<string, number>> =>
      new Map(
        [...(await nodes.redis.info('commandstats')).matchAll(/^cmdstat_(\w+):calls=(\d+)/gmu)]
          .filter(([, name]) => name !== 'info')
          .map(([, name = '', count]) => [name, Number(count)]),
      );
    const before = await calls();
    await sleep(10_000);
    const after = await calls();
    return [...after].map(([name, count]) => [name, (count - (before.get(name) ?? 0)) / 4 / 10] as const);
  });
  const total = perNodeSecond.reduce((sum, [, rate]) => sum + rate, 0);
  const byCommand = perNodeSecond
    .filter(([, rate]) => rate > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([name, rate]) => `${name} ${rate.toFixed(1)}`)
    .join(', ');
  // Every lease and membership call is one script (EVAL/EVALSHA): its round trips. COMMANDSTATS also counts each
  // command a script runs (GET, PEXPIRE, HSET, TIME, …), which is work inside one round trip.
  const scripts = perNodeSecond
    .filter(([name]) => name === 'eval' || name === 'evalsha')
    .reduce((sum, [, rate]) => sum + rate, 0);
  console.log(
    `  coordination at P = ${partitions}, 4 idle nodes: ${scripts.toFixed(1)} script round trips/s per node; ` +
      `${total.toFixed(1)} commands/s per node counted by COMMANDSTATS (${byCommand}; lrange is each node's source ` +
      'polling its idle log every 20 ms, the others run inside the scripts)',
  );
}
