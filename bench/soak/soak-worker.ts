import { HistoryRecorder, RecordingCheckpointStorage } from '../../test/support/linearizability/index.js';
import { runCheckpointLoop } from './checkpoint-loop.js';
import type { SoakCommand, SoakGrant, SoakWorkerConfig, SoakWorkerMessage } from './soak-messages.js';
import { connectSoakBackend } from './soak-backend.js';
import { StallableLeaseClock } from './stallable-lease-clock.js';

// One soak worker process: it competes for the lease of every subscription id and, while it holds one, handles
// "events" and checkpoints them. The harness stalls it, SIGSTOPs it, and pauses or restarts the store (Redis or PostgreSQL) under it.

const clock = new StallableLeaseClock();
const recorder = new HistoryRecorder();
/** Every lease this worker was granted, so the harness can count tokens handed to two holders. */
let grants: SoakGrant[] = [];
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
  const granted = grants;
  grants = [];
  if (events.length > 0 || granted.length > 0) {
    await send({ type: 'events', events, grants: granted });
  }
}

async function run(config: SoakWorkerConfig): Promise<void> {
  const backend = connectSoakBackend(config.target);
  const storage = backend.storage;
  const strategy = backend.strategy({
    leaseTimeMs: config.leaseMs,
    clock,
    onError: () => {
      leaseErrors += 1;
    },
  });
  strategy.onGranted((subscriptionId) => {
    const token = strategy.fencingToken(subscriptionId);
    if (token !== undefined) {
      grants.push({ subscriptionId, token, time: process.hrtime.bigint() });
    }
  });
  const flusher = setInterval(() => {
    void flushEvents();
  }, 250);
  await Promise.all(config.subscriptionIds.map((id) => strategy.register(id, config.name).catch(() => false)));
  await Promise.all(
    config.subscriptionIds.map((id) =>
      runCheckpointLoop(
        {
          subscriberId: config.name,
          strategy,
          storage: new RecordingCheckpointStorage(storage, recorder, `${config.name}/${id}`),
          clock,
          shouldStop: () => stopping || writes >= config.maxWrites,
          onWrite: () => {
            writes += 1;
          },
          random: Math.random,
        },
        id,
      ),
    ),
  );
  await strategy.shutdown();
  clearInterval(flusher);
  await backend.close();
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
