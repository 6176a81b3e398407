// One consumer process of the competing-consumers demo. Run by competing-consumers-demo.ts; each process competes for
// the lease of one subscription over a real Redis, reads events from a Redis list, and checkpoints through the fenced
// writer. With --metrics-port <n> it serves its OpenTelemetry metrics at http://127.0.0.1:<n>/metrics.
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import {
  CheckpointWriteConditionNotFulfilledError,
  DurableSubscription,
  RedisCheckpointStorage,
  RedisLeaseStrategy,
  type Checkpoint,
  type EventSource,
} from '../../runtime/index.js';
import { demoEventsKey, demoLeaseTimeMs, demoSubscriptionId, handlerWorkMs } from './demo-settings.js';

const { values } = parseArgs({
  options: { name: { type: 'string' }, redis: { type: 'string' }, 'metrics-port': { type: 'string' } },
});
const name = values.name ?? 'consumer';
const [host = '127.0.0.1', port = '6379'] = (values.redis ?? '127.0.0.1:6379').split(':');
const log = (line: string): void => {
  console.log(`[${name}] ${line}`);
};

// The exporter is registered before the storage, strategy and subscription are made: each resolves the global meter
// provider when it is constructed. Imported only when asked for, so without the flag no SDK is loaded.
const metricsPort = values['metrics-port'];
const metricsEndpoint =
  metricsPort === undefined
    ? undefined
    : await (await import('../observability/serve-metrics.js')).serveMetrics(Number(metricsPort));
if (metricsEndpoint !== undefined) {
  log(`serving metrics at ${metricsEndpoint.url}`);
}

const client = new Redis({ host, port: Number(port) });
const strategy = new RedisLeaseStrategy(client, { leaseTimeMs: demoLeaseTimeMs });
const storage = new RedisCheckpointStorage(client);

strategy.onGranted((subscriptionId) => {
  log(`lease granted for ${subscriptionId}, fencing token ${strategy.fencingToken(subscriptionId)}`);
});
strategy.onProhibited((subscriptionId) => {
  log(`lease lost for ${subscriptionId}`);
});

/** Events are the items of a Redis list; a position is an item's index. Polls when it has caught up. */
const source: EventSource<string> = async function* (from: Checkpoint | undefined, signal: AbortSignal) {
  let next = from === undefined ? 0 : Number(from) + 1;
  while (!signal.aborted) {
    const batch = await client.lrange(demoEventsKey, next, next + 99);
    for (const event of batch) {
      yield { position: String(next), event };
      next += 1;
    }
    if (batch.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
};

const subscription = new DurableSubscription({
  storage,
  strategy,
  subscriberId: name,
  onError: (error) => {
    if (error instanceof CheckpointWriteConditionNotFulfilledError) {
      log(`checkpoint write REFUSED (stored version ${error.storedVersion}): ${error.message}`);
    } else {
      log(`error: ${String(error)}`);
    }
  },
});

// SIGUSR2 asks this process to stop itself in the middle of its next event, exactly where a GC pause or a stopped VM
// would leave a real consumer: it has read an event under its lease and will write the checkpoint when it wakes.
let freezeInNextEvent = false;
process.on('SIGUSR2', () => {
  freezeInNextEvent = true;
});

subscription.subscribe(
  demoSubscriptionId,
  source,
  async (event: string, position: Checkpoint) => {
    log(`handling ${event} at position ${position} with token ${strategy.fencingToken(demoSubscriptionId)}`);
    if (freezeInNextEvent) {
      freezeInNextEvent = false;
      log(`freezing in the middle of ${event} (SIGSTOP to myself)`);
      process.kill(process.pid, 'SIGSTOP');
      // Awake again, this process finishes the event at once: its checkpoint write goes out before any timer of its
      // own (the lease refresh) can tell it the lease is gone. A node that knows it lost the lease writes nothing;
      // a zombie that does not know is what the fence is for.
      log(
        `woke up; finishing ${event} and writing its checkpoint with token ${strategy.fencingToken(demoSubscriptionId)}`,
      );
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, handlerWorkMs));
  },
  { startPosition: '-1' },
);
log(`started, competing for ${demoSubscriptionId} on ${host}:${port}`);

process.once('SIGTERM', () => {
  void (async () => {
    await subscription.shutdown();
    await strategy.shutdown();
    client.disconnect();
    await metricsEndpoint?.stop();
    log('shut down');
  })();
});
