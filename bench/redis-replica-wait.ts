import { availableParallelism } from 'node:os';
import { Redis } from 'ioredis';
import { CheckpointWriteCondition, RedisCheckpointStorage, RedisLeaseStrategy } from '../runtime/index.js';
import { startReplicatedRedis } from '../test/support/redis/index.js';
import { measureGrants } from './grant-latencies.js';
import { comparePaired, formatComparison, loadAverage, type BenchSide, type PairedRun } from './paired-throughput.js';

// What waitForReplicas costs (ADR 1101), on a master with one replica: notOlderThan saves with the default wait
// (WAIT for the replica, one WAIT per tick's pipeline) against the same saves with waitForReplicas false, and against
// plain SET, through one ioredis client with 64 writes in flight, in back-to-back pairs as `npm run bench:redis` does.
// Then the cost of a grant: RedisLeaseStrategy.register of a free lease, one at a time, with and without the wait.
// Every figure is printed with the load average before and after: on a shared machine the ratios scatter.

const grants = Number(process.env['BENCH_GRANTS'] ?? 300);

/** A side that saves `notOlderThan` through `storage`, one key and token a slot of `inFlight`, each token one up. */
export function fencedSaves(name: string, storage: RedisCheckpointStorage, keys: string, inFlight: number): BenchSide {
  const tokens = Array.from({ length: inFlight }, () => 0n);
  return {
    name,
    write: (slot, sequence) => {
      tokens[slot] = (tokens[slot] ?? 0n) + 1n;
      return storage.save(
        `${keys}-${slot}`,
        `position-${sequence}`,
        CheckpointWriteCondition.notOlderThan(tokens[slot]),
      );
    },
  };
}

/** Runs the comparison on a replicated pair it starts and stops itself; resolves to the exit code (always 0). */
export async function benchReplicaWait(run: PairedRun): Promise<number> {
  const servers = await startReplicatedRedis();
  const client = new Redis({ host: servers.master.host, port: servers.master.port });
  try {
    const loadBefore = loadAverage();
    const waiting = new RedisCheckpointStorage(client);
    const notWaiting = new RedisCheckpointStorage(client, { waitForReplicas: false });
    const withWait = fencedSaves('save notOlderThan, WAIT for 1 replica', waiting, 'bench-waiting', run.inFlight);
    const withoutWait = fencedSaves(
      'save notOlderThan, waitForReplicas false',
      notWaiting,
      'bench-not-waiting',
      run.inFlight,
    );
    const plainSet: BenchSide = {
      name: 'plain SET',
      write: (slot, sequence) => client.set(`bench-set-${slot}`, `position-${sequence}`),
    };
    await client.config('RESETSTAT');
    const againstNoWait = await comparePaired(withoutWait, withWait, run);
    const waitStats = commandCalls(await client.info('commandstats'));
    const againstSet = await comparePaired(plainSet, withWait, run);
    const grantWith = await grantLatencies(servers.master, 'auto');
    const grantWithout = await grantLatencies(servers.master, false);
    const info = await client.info('server');
    console.log(
      `redis notOlderThan with and without waiting for a replica: ${run.rounds} pairs of ${run.operations} writes each, ${run.inFlight} in ` +
        `flight, one ioredis client, a master with one replica on loopback, redis ${/redis_version:(\S+)/u.exec(info)?.[1] ?? '?'}, ` +
        `Node ${process.version}, load average ${loadBefore} before and ${loadAverage()} after, on ${availableParallelism()} cores`,
    );
    for (const line of formatComparison(againstNoWait, 'with WAIT / without')) {
      console.log(line);
    }
    // The waiting side's writes: one warm-up run and one run a round, each of run.operations writes.
    const waitedWrites = (run.rounds + 1) * run.operations;
    const waits = waitStats.get('wait') ?? 0;
    console.log(
      `  ${waits} WAITs for ${waitedWrites} waiting writes: ${(waitedWrites / Math.max(1, waits)).toFixed(1)} writes share a WAIT ` +
        "(one a tick's pipeline)",
    );
    for (const line of formatComparison(againstSet, 'with WAIT / SET')) {
      console.log(line);
    }
    console.log(
      `grant (register of a free lease, one at a time, ${grants} each): with WAIT p50 ${grantWith.p50.toFixed(2)} ms ` +
        `p99 ${grantWith.p99.toFixed(2)} ms; waitForReplicas false p50 ${grantWithout.p50.toFixed(2)} ms p99 ${grantWithout.p99.toFixed(2)} ms`,
    );
    return 0;
  } finally {
    client.disconnect();
    await servers.stop();
  }
}

/** `calls` of each command in `INFO commandstats`, by command name in lower case. */
function commandCalls(commandstats: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const [, name, count] of commandstats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gmu)) {
    calls.set(name ?? '', Number(count));
  }
  return calls;
}

/** {@link measureGrants} on a client and strategy of its own, with `waitForReplicas` as given. */
async function grantLatencies(
  master: { host: string; port: number },
  waitForReplicas: 'auto' | false,
): Promise<{ p50: number; p99: number }> {
  const client = new Redis({ host: master.host, port: master.port });
  const strategy = new RedisLeaseStrategy(client, {
    keyPrefix: `bench-grant-${String(waitForReplicas)}:`,
    leaseTimeMs: 60_000,
    waitForReplicas,
  });
  try {
    return await measureGrants(strategy, grants, 'is the replica online?');
  } finally {
    await strategy.shutdown();
    client.disconnect();
  }
}
