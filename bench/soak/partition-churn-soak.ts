import { fileURLToPath } from 'node:url';
import { redisLeaseKeys, defaultRedisLeaseKeyPrefix } from '../../runtime/store-layout-entry.js';
import { PartitionNodeProcesses, type PartitionNode } from '../../test/support/partitions/partition-node-processes.js';
import { startRedisServer } from '../../test/support/redis/index.js';
import { analyseChurn, type ChurnSample } from './partition-churn-analysis.js';

// The partition churn soak (issue 36): node processes of one PartitionedSubscription (16 partitions) on one
// redis-server, under a steady load, join, leave (SIGTERM), are killed (SIGKILL) and are stopped beyond their lease
// (SIGSTOP, then SIGCONT) at random. Every handled event's fenced write and the store, read every 25 ms, make the
// history the checker counts anomalies in. Exit code 1 when any count is above 0.

const partitions = 16;
const leaseTimeMs = 1_500;
const memberTimeMs = 900;
const settleMs = memberTimeMs / 2;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the churn soak for `seconds`, prints what it did and the anomaly counts; resolves to the exit code. */
export async function partitionChurnSoak(seconds: number): Promise<number> {
  const server = await startRedisServer();
  const nodes = new PartitionNodeProcesses(
    {
      port: server.port,
      partitions,
      leaseTimeMs,
      memberTimeMs,
      drainTimeoutMs: 400,
      handlerMs: 1,
      slowMs: 0,
      // Run from dist/: the nodes run the runtime/ built beside this soak.
    },
    fileURLToPath(new URL('../../runtime', import.meta.url)),
  );
  try {
    const ids = Array.from({ length: partitions }, (_, partition) => `orders/${partition}`);
    const leaseKeys = ids.map((id) => redisLeaseKeys(defaultRedisLeaseKeyPrefix, id).lease);
    const samples: ChurnSample[] = [];
    // Read by the loops below, cleared by the run: an object, so that the loops see the change.
    const running = { sampling: true, appending: true };
    const sampler = (async () => {
      while (running.sampling) {
        const values = await nodes.redis.mget(...ids, ...leaseKeys);
        samples.push({
          at: Date.now(),
          checkpoints: values.slice(0, partitions).map((value) => Number(value ?? 0)),
          leased: values.slice(partitions).map((value) => value !== null),
        });
        await sleep(25);
      }
    })();
    const appender = (async () => {
      while (running.appending) {
        await nodes.append(10, 64);
        await sleep(20);
      }
    })();

    const live: PartitionNode[] = [];
    let joined = 0;
    const join = async (): Promise<void> => {
      joined += 1;
      live.push(await nodes.start(`node-${joined}`));
    };
    for (let index = 0; index < 3; index += 1) {
      await join();
    }
    const actions = { join: 0, leave: 0, kill: 0, stop: 0 };
    const endAt = Date.now() + seconds * 1_000;
    while (Date.now() < endAt) {
      await sleep(1_000 + Math.random() * 2_000);
      const kind: keyof typeof actions =
        live.length <= 2 ? 'join' : live.length >= 5 ? 'leave' : pick(['join', 'leave', 'kill', 'stop'] as const);
      actions[kind] += 1;
      if (kind === 'join') {
        await join();
        continue;
      }
      const node = live[Math.floor(Math.random() * live.length)] as PartitionNode;
      if (kind === 'stop') {
        node.child.kill('SIGSTOP');
        await sleep(leaseTimeMs + 500);
        node.child.kill('SIGCONT');
        continue;
      }
      live.splice(live.indexOf(node), 1);
      node.child.kill(kind === 'leave' ? 'SIGTERM' : 'SIGKILL');
    }
    running.appending = false;
    await appender;
    const logLength = await nodes.redis.llen('log');
    // The nodes left running finish the log: every partition's checkpoint at its last event.
    await nodes
      .checkpointsReachLastEvents(() => false, 30_000)
      .catch((error: unknown) => {
        console.log(`soak --partitions: ${(error as Error).message}`);
      });
    running.sampling = false;
    await sampler;
    const handled = await nodes.handled();
    const unownedLimitMs = leaseTimeMs + settleMs + 1_000;
    const anomalies = analyseChurn(
      handled,
      samples,
      Array.from({ length: logLength }, (_, index) => index + 1),
      unownedLimitMs,
    );
    console.log(
      `soak --partitions: ${seconds} s, ${partitions} partitions, ${joined} nodes started; ${actions.join} joins, ` +
        `${actions.leave} leaves, ${actions.kill} kills, ${actions.stop} stops beyond the lease; ${logLength} events, ` +
        `${handled.length} handlings, ${samples.length} samples of the store`,
    );
    console.log(
      `soak --partitions: anomalies: checkpoint backward ${anomalies.checkpointBackward}, events not handled ` +
        `${anomalies.notHandled}, overlapping-tenure accepts ${anomalies.overlappingAccepts}, unowned longer than ` +
        `${unownedLimitMs} ms ${anomalies.unownedTooLong} (longest ${anomalies.longestUnownedMs} ms)`,
    );
    const total =
      anomalies.checkpointBackward + anomalies.notHandled + anomalies.overlappingAccepts + anomalies.unownedTooLong;
    return total === 0 ? 0 : 1;
  } finally {
    await nodes.close();
    await server.stop();
  }
}

function pick<T>(choices: readonly T[]): T {
  return choices[Math.floor(Math.random() * choices.length)] as T;
}
