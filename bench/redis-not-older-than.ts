import { availableParallelism, loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { CheckpointWriteCondition, RedisCheckpointStorage } from '../runtime/index.js';
import { startRedisServer } from '../test/support/redis/index.js';

// notOlderThan saves against plain SET through the same ioredis client, on one real redis-server, with 64 writes in
// flight. The two run in short back-to-back pairs (order alternating) so load from other processes on a shared machine
// hits both sides of a pair alike; the ratio is the median of the pairs' ratios, throughput the median slice, latency
// percentiles are over every timed write. Where the cost goes: the client's CPU time per call (process.cpuUsage over
// each slice) and the server's time per command (INFO commandstats usec_per_call). Target (issue 11): ratio >= 0.95.

const inFlight = 64;
const operations = Number(process.env['BENCH_OPERATIONS'] ?? 10_000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 25);
const target = 0.95;

const server = await startRedisServer();
// BENCH_AUTO_PIPELINING=1 measures both sides with ioredis's enableAutoPipelining (one socket write per tick).
const autoPipelining = process.env['BENCH_AUTO_PIPELINING'] === '1';
const client = new Redis({ host: server.host, port: server.port, enableAutoPipelining: autoPipelining });
const storage = new RedisCheckpointStorage(client);
const tokens = Array.from({ length: inFlight }, () => 0n);

type Write = (slot: number, sequence: number) => Promise<unknown>;
const variants: readonly (readonly [name: string, write: Write])[] = [
  ['plain SET', (slot, sequence) => client.set(`bench-set-${slot}`, `position-${sequence}`)],
  [
    'save notOlderThan(token)',
    (slot, sequence) => {
      tokens[slot] = (tokens[slot] ?? 0n) + 1n;
      return storage.save(
        `bench-fenced-${slot}`,
        `position-${sequence}`,
        CheckpointWriteCondition.notOlderThan(tokens[slot]),
      );
    },
  ],
];

/** Runs `count` writes with `inFlight` loops; returns ops/s, the client's CPU µs per write and each write's latency in ms. */
async function measure(
  write: Write,
  count: number,
): Promise<{ opsPerSecond: number; cpuMicrosPerCall: number; latencies: Float64Array }> {
  const latencies = new Float64Array(count);
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, slot) => {
      for (let sequence = next++; sequence < count; sequence = next++) {
        const begun = process.hrtime.bigint();
        await write(slot, sequence);
        latencies[sequence] = Number(process.hrtime.bigint() - begun) / 1e6;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  return { opsPerSecond: count / seconds, cpuMicrosPerCall: (cpu.user + cpu.system) / count, latencies };
}

/** `usec_per_call` of each command in `INFO commandstats`, by command name in lower case. */
function serverMicrosPerCall(commandstats: string): Map<string, number> {
  const perCall = new Map<string, number>();
  for (const [, name, micros] of commandstats.matchAll(/^cmdstat_([^:]+):.*usec_per_call=([\d.]+)/gmu)) {
    perCall.set(name ?? '', Number(micros));
  }
  return perCall;
}

function percentile(sorted: Float64Array, fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
}

try {
  const loadBefore = loadavg()[0] ?? Number.NaN;
  const throughput = new Map<string, number[]>(variants.map(([name]) => [name, []]));
  const cpuPerCall = new Map<string, number[]>(variants.map(([name]) => [name, []]));
  const latency = new Map<string, Float64Array[]>(variants.map(([name]) => [name, []]));
  const pairRatios: number[] = [];
  for (const [, write] of variants) {
    await measure(write, operations);
  }
  await client.config('RESETSTAT');
  for (let round = 0; round < rounds; round += 1) {
    const pair = new Map<string, number>();
    for (const [name, write] of round % 2 === 0 ? variants : [...variants].reverse()) {
      const { opsPerSecond, cpuMicrosPerCall, latencies } = await measure(write, operations);
      pair.set(name, opsPerSecond);
      throughput.get(name)?.push(opsPerSecond);
      cpuPerCall.get(name)?.push(cpuMicrosPerCall);
      latency.get(name)?.push(latencies);
    }
    pairRatios.push((pair.get('save notOlderThan(token)') ?? 0) / (pair.get('plain SET') ?? 1));
  }
  const serverTimes = serverMicrosPerCall(await client.info('commandstats'));
  const info = await client.info('server');
  console.log(
    `redis notOlderThan vs SET: ${rounds} pairs of ${operations} writes each, ${inFlight} in flight, one ioredis client${autoPipelining ? ' with enableAutoPipelining' : ''}, ` +
      `redis ${/redis_version:(\S+)/.exec(info)?.[1] ?? '?'}, Node ${process.version}, ` +
      `load average ${loadBefore.toFixed(1)} before and ${(loadavg()[0] ?? Number.NaN).toFixed(1)} after, on ${availableParallelism()} cores`,
  );
  const serverCommands: Record<string, readonly string[]> = {
    'plain SET': ['set'],
    'save notOlderThan(token)': ['evalsha', 'eval'],
  };
  for (const [name] of variants) {
    const all = Float64Array.from((latency.get(name) ?? []).flatMap((part) => [...part])).sort();
    const serverTime = (serverCommands[name] ?? [])
      .filter((command) => serverTimes.has(command))
      .map((command) => `${command.toUpperCase()} ${serverTimes.get(command)?.toFixed(2)} µs`)
      .join(', ');
    console.log(
      `${name.padEnd(26)} ${Math.round(median(throughput.get(name) ?? []))
        .toLocaleString('en-US')
        .padStart(9)} ops/s` +
        `  p50 ${percentile(all, 0.5).toFixed(2)} ms  p99 ${percentile(all, 0.99).toFixed(2)} ms` +
        `  client CPU ${median(cpuPerCall.get(name) ?? []).toFixed(2)} µs/call  server ${serverTime} per call`,
    );
  }
  const ratio = median(pairRatios);
  const sorted = [...pairRatios].sort((a, b) => a - b);
  console.log(
    `ratio notOlderThan / SET: ${ratio.toFixed(3)} (median of ${rounds} pairs; quartiles ${percentile(Float64Array.from(sorted), 0.25).toFixed(3)}–` +
      `${percentile(Float64Array.from(sorted), 0.75).toFixed(3)}; target >= ${target}: ${ratio >= target ? 'met' : 'NOT met'})`,
  );
  process.exitCode = ratio >= target ? 0 : 1;
} finally {
  client.disconnect();
  await server.stop();
}
