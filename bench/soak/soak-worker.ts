import { CheckpointWriteCondition, CheckpointWriteConditionNotFulfilledError, RedisCheckpointStorage, RedisLeaseStrategy } from '../../runtime/index.js';
import { HistoryRecorder, RecordingCheckpointStorage } from '../../test/support/linearizability/index.js';
import { formatSoakCheckpoint, parseSoakCheckpoint } from './soak-checkpoint.js';
import type { SoakCommand, SoakWorkerConfig, SoakWorkerMessage } from './soak-messages.js';
import { createSoakClient } from './soak-redis-client.js';
import { StallableLeaseClock } from './stallable-lease-clock.js';

// One soak worker process: it competes for the lease of every subscription id and, while it holds one, handles
// "events" and checkpoints them. The harness stalls it, SIGSTOPs it, and pauses or restarts Redis under it.

const clock = new StallableLeaseClock();
const recorder = new HistoryRecorder();
let stopping = false;
let sent = 0;
let writes = 0;
let leaseErrors = 0;

function send(message: SoakWorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined) {
      throw new Error('soak-worker runs as a child process of the soak harness (npm run soak), with an IPC channel.');
    }
    process.send(message, undefined, {}, () => {
      resolve();
    });
  });
}

async function flushEvents(): Promise<void> {
  const events = recorder.timedEvents(sent);
  sent += events.length;
  if (events.length > 0) {
    await send({ type: 'events', events });
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Holds the lease of `subscriptionId` when it can and checkpoints one position after another. On each new token it
 * first reads the stored position and fences it with the token; every later write carries the token the worker held
 * when it began handling the event, the stalest token a real worker could still send after a pause.
 */
async function checkpointLoop(config: SoakWorkerConfig, strategy: RedisLeaseStrategy, storage: RedisCheckpointStorage, subscriptionId: string): Promise<void> {
  const recorded = new RecordingCheckpointStorage(storage, recorder, `${config.name}/${subscriptionId}`);
  let heldToken: bigint | undefined;
  let offset = 0;
  while (!stopping && writes < config.maxWrites) {
    await clock.untilRunning();
    const token = strategy.hasLock(subscriptionId, config.name) ? strategy.fencingToken(subscriptionId) : undefined;
    if (token === undefined) {
      heldToken = undefined;
      await sleep(5);
      continue;
    }
    try {
      if (token !== heldToken) {
        offset = parseSoakCheckpoint(await recorded.read(subscriptionId))?.offset ?? 0;
        writes += 1;
        await recorded.save(subscriptionId, formatSoakCheckpoint(offset, token), CheckpointWriteCondition.notOlderThan(token));
        heldToken = token;
        continue;
      }
      // Handling an event: a stall or SIGSTOP landing here sends the next write after the lease may have moved on.
      await sleep(1 + Math.floor(Math.random() * 4));
      await clock.untilRunning();
      offset += 1;
      writes += 1;
      await recorded.save(subscriptionId, formatSoakCheckpoint(offset, heldToken), CheckpointWriteCondition.notOlderThan(heldToken));
    } catch (error) {
      if (error instanceof CheckpointWriteConditionNotFulfilledError) {
        heldToken = undefined;
      }
      await sleep(10);
    }
  }
}

async function run(config: SoakWorkerConfig): Promise<void> {
  const client = createSoakClient(config.redis);
  client.on('error', () => {
    // Connection errors surface on the calls that fail; the harness causes them on purpose.
  });
  const storage = new RedisCheckpointStorage(client);
  const strategy = new RedisLeaseStrategy(client, {
    leaseTimeMs: config.leaseMs,
    clock,
    onError: () => {
      leaseErrors += 1;
    },
  });
  const flusher = setInterval(() => {
    void flushEvents();
  }, 250);
  await Promise.all(config.subscriptionIds.map((id) => strategy.register(id, config.name).catch(() => false)));
  await Promise.all(config.subscriptionIds.map((id) => checkpointLoop(config, strategy, storage, id)));
  await strategy.shutdown();
  clearInterval(flusher);
  client.disconnect();
  await flushEvents();
  await send({ type: 'done', leaseErrors });
  process.disconnect();
}

process.on('message', (command: SoakCommand) => {
  switch (command.type) {
    case 'start':
      run(command.config).catch((error: unknown) => {
        console.error(`soak worker ${command.config.name} failed:`, error);
        process.exit(1);
      });
      break;
    case 'stall':
      clock.stall(command.ms);
      break;
    case 'stop':
      stopping = true;
      break;
  }
});
