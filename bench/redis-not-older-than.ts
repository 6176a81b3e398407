import { availableParallelism } from 'node:os';
import { Redis } from 'ioredis';
import { CheckpointWriteCondition, RedisCheckpointStorage } from '../runtime/index.js';
import { startRedisServer } from '../test/support/redis/index.js';
import { comparePaired, formatComparison, loadAverage } from './paired-throughput.js';

// notOlderThan saves against plain SET through the same ioredis client, on one real redis-server, with 64 writes in
// flight. The two run in short back-to-back pairs (order alternating) so load from other processes on a shared machine
// hits both sides of a pair alike; the ratio is the median of the pairs' ratios, throughput the median slice, latency
// percentiles are over every timed write. Target (issue 3): ratio >= 0.85.

const run = {
  inFlight: 64,
  operations: Number(process.env['BENCH_OPERATIONS'] ?? 10_000),
  rounds: Number(process.env['BENCH_ROUNDS'] ?? 25),
};
const target = 0.85;

const server = await startRedisServer();
// BENCH_AUTO_PIPELINING=1 measures both sides with ioredis's enableAutoPipelining (one socket write per tick).
const autoPipelining = process.env['BENCH_AUTO_PIPELINING'] === '1';
const client = new Redis({ host: server.host, port: server.port, enableAutoPipelining: autoPipelining });
const storage = new RedisCheckpointStorage(client);
const tokens = Array.from({ length: run.inFlight }, () => 0n);

try {
  const comparison = await comparePaired(
    { name: 'plain SET', write: (slot, sequence) => client.set(`bench-set-${slot}`, `position-${sequence}`) },
    {
      name: 'save notOlderThan(token)',
      write: (slot, sequence) => {
        tokens[slot] = (tokens[slot] ?? 0n) + 1n;
        return storage.save(
          `bench-fenced-${slot}`,
          `position-${sequence}`,
          CheckpointWriteCondition.notOlderThan(tokens[slot]),
        );
      },
    },
    run,
  );
  const info = await client.info('server');
  console.log(
    `redis notOlderThan vs SET: ${run.rounds} pairs of ${run.operations} writes each, ${run.inFlight} in flight, one ioredis client${autoPipelining ? ' with enableAutoPipelining' : ''}, ` +
      `redis ${/redis_version:(\S+)/.exec(info)?.[1] ?? '?'}, Node ${process.version}, load average ${loadAverage()} on ${availableParallelism()} cores`,
  );
  for (const line of formatComparison(comparison, 'notOlderThan / SET', target)) {
    console.log(line);
  }
  process.exitCode = comparison.ratio >= target ? 0 : 1;
} finally {
  client.disconnect();
  await server.stop();
}
