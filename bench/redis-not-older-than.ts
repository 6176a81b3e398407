import { availableParallelism } from 'node:os';
import { Redis } from 'ioredis';
import { CheckpointWriteCondition, RedisCheckpointStorage, type RedisCheckpointClient } from '../runtime/index.js';
import { startRedisServer } from '../test/support/redis/index.js';
import { comparePaired, formatComparison, loadAverage, type SideFigures } from './paired-throughput.js';
import { benchReplicaWait, fencedSaves } from './redis-replica-wait.js';

// notOlderThan saves against plain SET through the same ioredis client, on one real redis-server, with 64 writes in
// flight. The two run in short back-to-back pairs (order alternating) so load from other processes on a shared machine
// hits both sides of a pair alike; the ratio is the median of the pairs' ratios, throughput the median slice, latency
// percentiles are over every timed write. Where the cost goes: the client's CPU time per call (process.cpuUsage over
// each slice) and the server's time per command (INFO commandstats usec_per_call). Target (issue 11): ratio >= 0.95.
// Then the storage's one-tick pipeline (ADR 0103) against ioredis's enableAutoPipelining: the same saves through the
// storage over a plain client, and through the storage over an auto-pipelining client with its own batching off (the
// client is handed over without pipeline(), so each command goes to the client on its own, in order, as on a Cluster).
// Then what waitForReplicas 'auto' costs on a server that has no replica (ADR 1105: INFO replication rides in each
// tick's pipeline, behind the writes), against false, with 64 writes in flight and with one.
// With --replica: what waiting for a replica costs, on a master with one (bench/redis-replica-wait.ts).

const run = {
  inFlight: 64,
  operations: Number(process.env['BENCH_OPERATIONS'] ?? 10_000),
  rounds: Number(process.env['BENCH_ROUNDS'] ?? 25),
};
const target = 0.95;

if (process.argv.includes('--replica')) {
  process.exitCode = await benchReplicaWait(run);
} else {
  await benchAgainstSet();
}

/** `usec_per_call` of each command in `INFO commandstats`, by command name in lower case. */
function serverMicrosPerCall(commandstats: string): Map<string, number> {
  const perCall = new Map<string, number>();
  for (const [, name, micros] of commandstats.matchAll(/^cmdstat_([^:]+):.*usec_per_call=([\d.]+)/gmu)) {
    perCall.set(name ?? '', Number(micros));
  }
  return perCall;
}

async function benchAgainstSet(): Promise<void> {
  const server = await startRedisServer();
  // BENCH_AUTO_PIPELINING=1 measures both sides with ioredis's enableAutoPipelining (one socket write per tick).
  const autoPipelining = process.env['BENCH_AUTO_PIPELINING'] === '1';
  const client = new Redis({ host: server.host, port: server.port, enableAutoPipelining: autoPipelining });
  const storage = new RedisCheckpointStorage(client);
  const tokens = Array.from({ length: run.inFlight }, () => 0n);
  const plainSet = 'plain SET';
  const fencedSave = 'save notOlderThan(token)';
  /** The commands each side sends, whose server time per call the bench prints. */
  const serverCommands: Readonly<Record<string, readonly string[]>> = {
    [plainSet]: ['set'],
    [fencedSave]: ['evalsha', 'eval'],
  };

  try {
    const loadBefore = loadAverage();
    // Counted from here: the comparison's own warm-up runs are in, the set-up's commands are not.
    await client.config('RESETSTAT');
    const comparison = await comparePaired(
      { name: plainSet, write: (slot, sequence) => client.set(`bench-set-${slot}`, `position-${sequence}`) },
      {
        name: fencedSave,
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
    const serverTimes = serverMicrosPerCall(await client.info('commandstats'));
    const serverCost = ({ name }: SideFigures): string =>
      `server ${(serverCommands[name] ?? [])
        .filter((command) => serverTimes.has(command))
        .map((command) => `${command.toUpperCase()} ${serverTimes.get(command)?.toFixed(2)} µs`)
        .join(', ')} per call`;
    const info = await client.info('server');
    console.log(
      `redis notOlderThan vs SET: ${run.rounds} pairs of ${run.operations} writes each, ${run.inFlight} in flight, one ioredis client${autoPipelining ? ' with enableAutoPipelining' : ''}, ` +
        `redis ${/redis_version:(\S+)/.exec(info)?.[1] ?? '?'}, Node ${process.version}, ` +
        `load average ${loadBefore} before and ${loadAverage()} after, on ${availableParallelism()} cores`,
    );
    for (const line of formatComparison(comparison, 'notOlderThan / SET', target, serverCost)) {
      console.log(line);
    }
    await benchAgainstAutoPipelining(server);
    await benchAutoWithoutReplicas(server);
    process.exitCode = comparison.ratio >= target ? 0 : 1;
  } finally {
    client.disconnect();
    await server.stop();
  }
}

/** Saves with waitForReplicas 'auto' against false, on a server without replicas: 64 in flight, then one at a time. */
async function benchAutoWithoutReplicas(server: { readonly host: string; readonly port: number }): Promise<void> {
  const client = new Redis({ host: server.host, port: server.port });
  try {
    for (const inFlight of [run.inFlight, 1]) {
      const sized = { ...run, inFlight, operations: inFlight === 1 ? Math.ceil(run.operations / 5) : run.operations };
      const loadBefore = loadAverage();
      const comparison = await comparePaired(
        fencedSaves(
          'save, waitForReplicas false',
          new RedisCheckpointStorage(client, { waitForReplicas: false }),
          `bench-off-${inFlight}`,
          inFlight,
        ),
        fencedSaves(
          "save, waitForReplicas 'auto'",
          new RedisCheckpointStorage(client),
          `bench-auto-wait-${inFlight}`,
          inFlight,
        ),
        sized,
      );
      console.log(
        `redis notOlderThan on a server without replicas, waitForReplicas 'auto' against false: ${sized.rounds} pairs of ` +
          `${sized.operations} writes each, ${inFlight} in flight, load average ${loadBefore} before and ${loadAverage()} after`,
      );
      for (const line of formatComparison(comparison, "'auto' / false")) {
        console.log(line);
      }
    }
  } finally {
    client.disconnect();
  }
}

/** Saves through the storage's own batching over a plain client, against its batching off over an auto-pipelining one. */
async function benchAgainstAutoPipelining(server: { readonly host: string; readonly port: number }): Promise<void> {
  const plain = new Redis({ host: server.host, port: server.port });
  const autoPipelined = new Redis({ host: server.host, port: server.port, enableAutoPipelining: true });
  // No pipeline(): the storage sends each command to the client on its own, which batches them itself.
  const withoutPipeline: RedisCheckpointClient = {
    get: (key) => autoPipelined.get(key),
    set: (key, value) => autoPipelined.set(key, value),
    del: (...keys) => autoPipelined.del(...keys),
    evalsha: (sha1, numkeys, ...keysAndArgs) => autoPipelined.evalsha(sha1, numkeys, ...keysAndArgs),
    eval: (script, numkeys, ...keysAndArgs) => autoPipelined.eval(script, numkeys, ...keysAndArgs),
    info: (section) => autoPipelined.info(section),
  };
  try {
    const loadBefore = loadAverage();
    const comparison = await comparePaired(
      fencedSaves(
        'save, storage batching, plain client',
        new RedisCheckpointStorage(plain),
        'bench-batched',
        run.inFlight,
      ),
      fencedSaves(
        'save, enableAutoPipelining, no storage batching',
        new RedisCheckpointStorage(withoutPipeline),
        'bench-auto',
        run.inFlight,
      ),
      run,
    );
    console.log(
      `redis notOlderThan, the storage's one-tick pipeline against enableAutoPipelining: ${run.rounds} pairs of ${run.operations} ` +
        `writes each, ${run.inFlight} in flight, load average ${loadBefore} before and ${loadAverage()} after`,
    );
    for (const line of formatComparison(comparison, 'enableAutoPipelining / storage batching')) {
      console.log(line);
    }
  } finally {
    plain.disconnect();
    autoPipelined.disconnect();
  }
}
