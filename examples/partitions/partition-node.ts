// One node of the partitioned-consumers demo, run by partitions-demo.ts: a PartitionedSubscription over a shared log
// (a Redis list), with its partitions' leases, tokens and checkpoints in Redis. Its handler keeps a projection of its
// own per partition (the last position it includes), each write stamped with the partition's fencing token. Prints
// the partitions it owns whenever they change, and the events it handled each second. SIGUSR2 makes it stop itself
// (SIGSTOP) in the middle of its next event, as a GC pause or a stopped VM would; SIGTERM hands every partition over
// and exits.
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  PartitionedSubscription,
  RedisCheckpointStorage,
  RedisLeaseStrategy,
  RedisMembership,
  type EventSource,
} from '../../runtime/index.js';
import {
  demoDrainTimeoutMs,
  demoEventsKey,
  demoLeaseTimeMs,
  demoMemberTimeMs,
  demoName,
  demoPartitions,
  demoProjectionPrefix,
  handlerCpuMs,
  streamOf,
} from './partitions-settings.js';

const { values } = parseArgs({ options: { name: { type: 'string' }, redis: { type: 'string' } } });
const name = values.name ?? 'node';
const [host = '127.0.0.1', port = '6379'] = (values.redis ?? '127.0.0.1:6379').split(':');
const log = (line: string): void => {
  console.log(`[${name}] ${line}`);
};

const client = new Redis({ host, port: Number(port) });
const strategy = new RedisLeaseStrategy(client, { leaseTimeMs: demoLeaseTimeMs });
/** The handler's own resource, fenced like the checkpoint: a fenced key-value store of its own. */
const projection = new RedisCheckpointStorage(client, { keyPrefix: demoProjectionPrefix });

/** The shared log: the items of a Redis list, the nth at position n. Polls once it has caught up. */
const source: EventSource<string> = async function* (from, signal) {
  let next = from === undefined ? 0 : Number(from);
  while (!signal.aborted) {
    const batch = await client.lrange(demoEventsKey, next, next + 499);
    for (const event of batch) {
      next += 1;
      yield { position: String(next), event };
    }
    if (batch.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
};

let handled = 0;
let freezeInNextEvent = false;
process.on('SIGUSR2', () => {
  freezeInNextEvent = true;
});

const subscription = new PartitionedSubscription<string>({
  name: demoName,
  partitions: demoPartitions,
  partitionKey: streamOf,
  source,
  storage: new RedisCheckpointStorage(client),
  strategy,
  membership: new RedisMembership(client, { memberTimeMs: demoMemberTimeMs }),
  nodeId: name,
  drainTimeoutMs: demoDrainTimeoutMs,
  handler: async (event, position, context) => {
    const id = `${demoName}/${context.partition}`;
    if (freezeInNextEvent) {
      freezeInNextEvent = false;
      log(
        `freezing in the middle of ${event} (partition ${context.partition}, token ${context.fencingToken}): SIGSTOP to myself`,
      );
      process.kill(process.pid, 'SIGSTOP');
      log(
        `woke up; writing partition ${context.partition}'s projection at ${position} with token ${context.fencingToken}`,
      );
    } else {
      const until = performance.now() + handlerCpuMs;
      while (performance.now() < until) {
        // Burns the handler's CPU, as a real handler's work would.
      }
    }
    try {
      // Stamped with the partition's token: once a newer owner has written, this node's late write is refused.
      await projection.save(id, position, CheckpointWriteCondition.notOlderThan(context.fencingToken ?? -1n));
    } catch (error) {
      if (error instanceof CheckpointWriteConditionNotFulfilledError) {
        log(
          `projection write of ${id} REFUSED: stored version ${error.storedVersion} is newer than my token ${context.fencingToken}`,
        );
      }
      throw error;
    }
    handled += 1;
  },
  onError: (error, subscriptionId) => {
    log(`error on ${subscriptionId}: ${error instanceof Error ? error.message : String(error)}`);
  },
});

let owned = '';
const ownership = setInterval(() => {
  const partitions = subscription
    .status()
    .partitions.map(({ partition }) => partition)
    .sort((a, b) => a - b);
  if (partitions.join(',') !== owned) {
    owned = partitions.join(',');
    log(`owns ${partitions.length} partitions: ${owned === '' ? '-' : owned}`);
  }
}, 100);
let lastHandled = 0;
const rate = setInterval(() => {
  log(`${handled - lastHandled} events/s`);
  lastHandled = handled;
}, 1_000);

await subscription.start();
log(`joined ${demoName} (${demoPartitions} partitions) on ${host}:${port}`);

process.once('SIGTERM', () => {
  void (async () => {
    clearInterval(ownership);
    clearInterval(rate);
    await subscription.shutdown();
    await strategy.shutdown();
    client.disconnect();
    log(`handed every partition over and left; handled ${handled} events`);
  })();
});
