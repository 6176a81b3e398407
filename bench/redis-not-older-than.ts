import { availableParallelism, loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { CheckpointWriteCondition, RedisCheckpointStorage } from '../runtime/index.js';
import { measureInFlight, median, percentile, type BenchOperation } from './in-flight-measurement.js';
import { startRedisServer } from '../test/support/redis/index.js';

// notOlderThan saves against plain SET through the same ioredis client, on one real redis-server, with 64 writes in
// flight. The two run in short back-to-back pairs (order alternating) so load from other processes on a shared machine
// hits both sides of a pair alike; the ratio is the median of the pairs' ratios, throughput the median slice, latency
// percentiles are over every timed write. Target (issue 3): ratio >= 0.85.

const inFlight = 64;
const operations = Number(process.env['BENCH_OPERATIONS'] ?? 10_000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 25);
const target = 0.85;

const server = await startRedisServer();
// BENCH_AUTO_PIPELINING=1 measures both sides with ioredis's enableAutoPipelining (one socket write per tick).
const autoPipelining = process.env['BENCH_AUTO_PIPELINING'] === '1';
const client = new Redis({ host: server.host, port: server.port, enableAutoPipelining: autoPipelining });
const storage = new RedisCheckpointStorage(client);
const tokens = Array.from({ length: inFlight }, () => 0n);

type Write = BenchOperation;
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

try {
  const throughput = new Map<string, number[]>(variants.map(([name]) => [name, []]));
  const latency = new Map<string, Float64Array[]>(variants.map(([name]) => [name, []]));
  const pairRatios: number[] = [];
  for (const [, write] of variants) {
    await measureInFlight(write, operations, inFlight);
  }
  for (let round = 0; round < rounds; round += 1) {
    const pair = new Map<string, number>();
    for (const [name, write] of round % 2 === 0 ? variants : [...variants].reverse()) {
      const { opsPerSecond, latencies } = await measureInFlight(write, operations, inFlight);
      pair.set(name, opsPerSecond);
      throughput.get(name)?.push(opsPerSecond);
      latency.get(name)?.push(latencies);
    }
    pairRatios.push((pair.get('save notOlderThan(token)') ?? 0) / (pair.get('plain SET') ?? 1));
  }
  const info = await client.info('server');
  console.log(
    `redis notOlderThan vs SET: ${rounds} pairs of ${operations} writes each, ${inFlight} in flight, one ioredis client${autoPipelining ? ' with enableAutoPipelining' : ''}, ` +
      `redis ${/redis_version:(\S+)/.exec(info)?.[1] ?? '?'}, Node ${process.version}, load average ${loadavg()[0]?.toFixed(1) ?? '?'} on ${availableParallelism()} cores`,
  );
  for (const [name] of variants) {
    const all = Float64Array.from((latency.get(name) ?? []).flatMap((part) => [...part])).sort();
    console.log(
      `${name.padEnd(26)} ${Math.round(median(throughput.get(name) ?? []))
        .toLocaleString('en-US')
        .padStart(9)} ops/s` +
        `  p50 ${percentile(all, 0.5).toFixed(2)} ms  p99 ${percentile(all, 0.99).toFixed(2)} ms`,
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
