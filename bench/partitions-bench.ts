import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { eventually } from '../test/support/leases/event-log.js';
import {
  PartitionNodeProcesses,
  type PartitionNode,
  type PartitionNodeSettings,
} from '../test/support/partitions/partition-node-processes.js';
import { cpuMs } from '../test/support/processes/process-table.js';
import {
  postgresBackend,
  redisBackend,
  type BenchBackend,
  type BenchStore,
  type CallCounts,
} from './partitions-bench-backends.js';

// npm run bench:partitions [-- --backend redis|postgres] [-- --coordination] (issue 36): node processes of one
// PartitionedSubscription on Redis and on PostgreSQL (through pgbouncer), run from dist/, each backend's figures side
// by side. Scaling: a backlog in the shared log, a handler burning 1 ms of CPU an event, P = 32, 1, 2 and 4 processes in
// each round, several rounds; events a second, the ratios, CPU per event of the nodes and of the servers. Rebalance:
// after kill -9 and after SIGTERM, until every partition is owned again. Coordination: round trips a second per idle
// node at P = 16 and 64. --coordination measures only that.

const { values: flags } = parseArgs({
  options: { backend: { type: 'string' }, coordination: { type: 'boolean', default: false } },
});
if (flags.backend !== undefined && flags.backend !== 'redis' && flags.backend !== 'postgres') {
  throw new Error(
    `bench:partitions: unknown --backend ${flags.backend}; use redis or postgres, or leave it out for both.`,
  );
}
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
const counts = [1, 2, 4] as const;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One run on a fresh store of `backend`: `run` gets the nodes' harness; both are gone when it settles. */
async function onFreshStore<T>(
  backend: BenchBackend,
  settings: Partial<PartitionNodeSettings>,
  run: (nodes: PartitionNodeProcesses, store: BenchStore) => Promise<T>,
): Promise<T> {
  const store = await backend.fresh();
  const nodes = new PartitionNodeProcesses({ ...base, ...settings, ...store.settings }, runtime);
  try {
    return await run(nodes, store);
  } finally {
    await nodes.close();
    await store.stop();
  }
}

interface Throughput {
  readonly eventsPerSecond: number;
  /** CPU milliseconds an event, of all node processes together. */
  readonly clientCpu: number;
  /** CPU milliseconds an event, of each server. */
  readonly serverCpu: Record<string, number>;
}

/** Events a second with `count` processes over a backlog in the log, and CPU per event, both over the handling alone. */
async function throughput(backend: BenchBackend, count: number): Promise<Throughput> {
  return onFreshStore(backend, {}, async (nodes, store) => {
    const started = await Promise.all(Array.from({ length: count }, (_, index) => nodes.start(`node-${index}`)));
    // Settled first (each node owns ⌊P/N⌋ or ⌈P/N⌉ partitions), with the log still empty, then the whole log appended
    // at once: the run times the handling of a backlog, not the start-up and the hand-overs of a membership settling.
    await eventually(
      'the nodes share the partitions evenly',
      () => nodes.own(started) && started.every((node) => node.owned.length >= Math.floor(base.partitions / count)),
      30_000,
    );
    // Timed from the append's start: the nodes handle the first batches while later ones are appended, which a clock
    // started at its end would count for free. The servers' CPU so includes the log's writing, batches of 256.
    const clientCpu = (): number => started.reduce((sum, node) => sum + cpuMs(node.child.pid ?? 0), 0);
    const [clientBefore, serverBefore] = [clientCpu(), await store.serverCpuMs()];
    const startedAt = performance.now();
    await nodes.append(events, 256);
    await nodes.checkpointsReachLastEvents(() => false, 600_000);
    const seconds = (performance.now() - startedAt) / 1_000;
    const [clientAfter, serverAfter] = [clientCpu(), await store.serverCpuMs()];
    return {
      eventsPerSecond: events / seconds,
      clientCpu: (clientAfter - clientBefore) / events,
      serverCpu: Object.fromEntries(
        Object.entries(serverAfter).map(([server, ms]) => [server, (ms - (serverBefore[server] ?? 0)) / events]),
      ),
    };
  });
}

/** Milliseconds until the others own every partition, after each of `kills` kill -9 and 5 SIGTERM, under a light load. */
async function rebalance(backend: BenchBackend): Promise<{ afterKill: number[]; afterTerm: number[] }> {
  return onFreshStore(backend, {}, async (nodes) => {
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
}

/** Calls a second per node of 4 idle nodes (no events) at P = `partitions`, counted by the server over 10 s. */
async function coordination(backend: BenchBackend, partitions: number): Promise<CallCounts> {
  return onFreshStore(backend, { partitions }, async (nodes, store) => {
    const started = await Promise.all(Array.from({ length: 4 }, (_, index) => nodes.start(`node-${index}`)));
    await eventually('four nodes own every partition', () => nodes.own(started), 30_000);
    await sleep(2_000);
    const before = await store.calls();
    await sleep(10_000);
    const after = await store.calls();
    const rate = (now: number, then = 0): number => (now - then) / 4 / 10;
    const rateEach = (now: ReadonlyMap<string, number>, then: ReadonlyMap<string, number>): Map<string, number> =>
      new Map([...now].map(([name, count]) => [name, rate(count, then.get(name))] as const).filter(([, r]) => r > 0));
    return {
      coordination: rateEach(after.coordination, before.coordination),
      polling: rate(after.polling, before.polling),
      inside: rateEach(after.inside, before.inside),
    };
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** `median (min–max)` with `digits` decimals. */
function summary(values: readonly number[], digits = 0): string {
  const fixed = (value: number): string => value.toFixed(digits);
  return `${fixed(median(values))} (${fixed(Math.min(...values))}–${fixed(Math.max(...values))})`;
}

function p95(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1] ?? Number.NaN;
}

/** `total (name rate, …)` of rates a second, largest first. */
function rates(byName: ReadonlyMap<string, number>): string {
  const total = [...byName.values()].reduce((sum, rate) => sum + rate, 0);
  const parts = [...byName].sort((a, b) => b[1] - a[1]).map(([name, rate]) => `${name} ${rate.toFixed(1)}`);
  return `${total.toFixed(1)}${parts.length === 0 ? '' : ` (${parts.join(', ')})`}`;
}

/** Prints rows of a label and one cell per backend, in columns. */
function printTable(header: string, rows: readonly (readonly string[])[]): void {
  const all = [[header, ...backends.map((backend) => backend.name)], ...rows];
  const widths = all[0]?.map((_, column) => Math.max(...all.map((row) => row[column]?.length ?? 0))) ?? [];
  for (const row of all) {
    console.log(`  ${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ')}`.trimEnd());
  }
}

const backends: BenchBackend[] = [];
try {
  for (const name of flags.backend === undefined ? ['redis', 'postgres'] : [flags.backend]) {
    backends.push(name === 'redis' ? redisBackend() : await postgresBackend());
  }
  if (!flags.coordination) {
    console.log(
      `bench:partitions: ${rounds} rounds of ${events} events, P = ${base.partitions}, a 1 ms CPU handler, ` +
        `lease ${base.leaseTimeMs} ms, drain ${base.drainTimeoutMs} ms, ${kills} kills`,
    );
    // Backends alternate within each round, so that a change of load on the machine falls on both alike.
    const measured = backends.map(() => new Map<number, Throughput[]>(counts.map((count) => [count, []])));
    for (let round = 0; round < rounds; round += 1) {
      for (const count of counts) {
        for (const [index, backend] of backends.entries()) {
          measured[index]?.get(count)?.push(await throughput(backend, count));
        }
      }
      const perSecond = measured.map((byCount) =>
        counts.map((count) => `${count} → ${byCount.get(count)?.[round]?.eventsPerSecond.toFixed(0)}`).join(', '),
      );
      console.log(
        `  round ${round + 1}, events/s: ${perSecond.map((line, i) => `${backends[i]?.name} ${line}`).join('; ')}`,
      );
    }
    const column = (cell: (byCount: Map<number, Throughput[]>) => string): string[] => measured.map(cell);
    const eventsPerSecond = (byCount: Map<number, Throughput[]>, count: number): number[] =>
      (byCount.get(count) ?? []).map((result) => result.eventsPerSecond);
    const ratio = (over: number, under: number) => (byCount: Map<number, Throughput[]>) =>
      summary(
        eventsPerSecond(byCount, over).map((value, round) => value / (eventsPerSecond(byCount, under)[round] ?? 1)),
        2,
      );
    const all = (byCount: Map<number, Throughput[]>): Throughput[] => [...byCount.values()].flat();
    const cpu = (byCount: Map<number, Throughput[]>, of: (result: Throughput) => number): string =>
      summary(all(byCount).map(of), 3);
    const timings = (ms: readonly number[]): string =>
      `${p95(ms).toFixed(0)} / ${median(ms).toFixed(0)} over ${ms.length}`;
    const rebalances: Awaited<ReturnType<typeof rebalance>>[] = [];
    for (const backend of backends) {
      rebalances.push(await rebalance(backend));
    }
    printTable('scaling: median (min–max) over rounds; rebalance', [
      ...counts.map((count) => [
        `${count} process${count === 1 ? '' : 'es'}, events/s`,
        ...column((byCount) => summary(eventsPerSecond(byCount, count))),
      ]),
      ['ratio 2/1 (target ≥ 1.7)', ...column(ratio(2, 1))],
      ['ratio 4/2 (target ≥ 0.9)', ...column(ratio(4, 2))],
      ['CPU ms per event, all node processes', ...column((byCount) => cpu(byCount, (result) => result.clientCpu))],
      [
        'CPU ms per event, servers',
        ...column((byCount) =>
          Object.keys(all(byCount)[0]?.serverCpu ?? {})
            .map((server) => `${server} ${cpu(byCount, (result) => result.serverCpu[server] ?? 0)}`)
            .join(', '),
        ),
      ],
      [
        `rebalance after kill -9, p95 / median ms (bound lease + 2 s = ${base.leaseTimeMs + 2_000})`,
        ...rebalances.map(({ afterKill }) => timings(afterKill)),
      ],
      [
        `rebalance after SIGTERM, p95 / median ms (bound drain + 1 s = ${base.drainTimeoutMs + 1_000})`,
        ...rebalances.map(({ afterTerm }) => timings(afterTerm)),
      ],
    ]);
  }
  const rows: string[][] = [];
  for (const partitions of [16, 64]) {
    const measured = [];
    for (const backend of backends) {
      measured.push(await coordination(backend, partitions));
    }
    rows.push(
      [`P = ${partitions}: coordination round trips/s per node`, ...measured.map((calls) => rates(calls.coordination))],
      [`P = ${partitions}: source polls of the log/s per node`, ...measured.map((calls) => calls.polling.toFixed(1))],
    );
    if (measured.some((calls) => calls.inside.size > 0)) {
      rows.push([
        `P = ${partitions}: commands inside them/s per node`,
        ...measured.map((calls) => (calls.inside.size === 0 ? '–' : rates(calls.inside))),
      ]);
    }
  }
  printTable('coordination, 4 idle nodes', rows);
  for (const backend of backends) {
    console.log(`  ${backend.counted}.`);
  }
} finally {
  for (const backend of backends) {
    await backend.close();
  }
}
