// The competing-consumers demo: two consumer processes over one real Redis. The lease holder stops (SIGSTOP) in the
// middle of handling an event, the other process takes the lease over, and when the stopped one is continued its
// late checkpoint write is refused by the fence. Usage:
//   npm run example:competing-consumers [-- --redis host:port]
// Without --redis it starts its own redis-server on a free loopback port and stops it at the end.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { RedisCheckpointStorage } from '../../runtime/index.js';
import { demoEventsKey, demoLeaseTimeMs, demoSubscriptionId } from './demo-settings.js';

const eventCount = 60;
const stepTimeoutMs = 30_000;
const say = (line: string): void => {
  console.log(`[demo] ${line}`);
};

interface Consumer {
  readonly name: string;
  readonly process: ChildProcess;
  readonly lines: string[];
  /** When each line arrived, `performance.now()`. */
  readonly arrivals: number[];
}

const { values } = parseArgs({ options: { redis: { type: 'string' } } });
const ownServer = values.redis === undefined ? await startRedisServer() : undefined;
const address = values.redis ?? `127.0.0.1:${ownServer?.port}`;
const [host = '127.0.0.1', port = '6379'] = address.split(':');
const admin = new Redis({ host, port: Number(port) });
const storage = new RedisCheckpointStorage(admin);
const consumers: Consumer[] = [];

try {
  await storage.delete(demoSubscriptionId);
  await admin.del(demoEventsKey);
  await admin.rpush(demoEventsKey, ...Array.from({ length: eventCount }, (_, index) => `order-${index + 1}`));
  say(
    `redis at ${address}${ownServer === undefined ? '' : ' (started by the demo)'}; ${eventCount} events in ${demoEventsKey}`,
  );

  const a = startConsumer('A');
  await until('A holds the lease', () => a.lines.some((line) => line.includes('lease granted')));
  const b = startConsumer('B');
  await until('B has started and waits for the lease', () => count(b, 'started') > 0);
  await until('A has handled 10 events', () => count(a, 'handling') >= 10);

  say('SIGUSR2 A: stop yourself in the middle of your next event');
  a.process.kill('SIGUSR2');
  await until('A has stopped itself mid-event', () => count(a, 'freezing') > 0);
  const stoppedAt = performance.now();
  say('A is stopped mid-event: a zombie that still believes it holds the lease');

  await until('B takes the lease over', () => b.lines.some((line) => line.includes('lease granted')));
  await until('B has handled 5 events', () => count(b, 'handling') >= 5);
  say(
    `B was granted the lease ${Math.round(firstArrival(b, 'lease granted') - stoppedAt)} ms after A stopped and handled its first event ` +
      `${Math.round(firstArrival(b, 'handling') - stoppedAt)} ms after (lease ${demoLeaseTimeMs} ms, then a takeover grace of two thirds of it)`,
  );
  say(
    `stored checkpoint is now ${await storage.read(demoSubscriptionId)}, version ${await storage.writeVersion(demoSubscriptionId)}`,
  );

  a.process.kill('SIGCONT');
  say('SIGCONT A: the zombie finishes its event and writes its checkpoint with its old token');
  await until("A's late checkpoint write is refused", () => a.lines.some((line) => line.includes('REFUSED')));
  a.process.kill('SIGKILL');
  say('SIGKILL A: it is gone for good');

  await until(
    `B checkpoints the last event (position ${eventCount - 1})`,
    async () => (await storage.read(demoSubscriptionId)) === String(eventCount - 1),
  );
  b.process.kill('SIGTERM');
  await new Promise((resolve) => b.process.once('exit', resolve));
  say(
    `done: stored checkpoint ${await storage.read(demoSubscriptionId)}, version ${await storage.writeVersion(demoSubscriptionId)}; ` +
      `A handled ${count(a, 'handling')} events, B handled ${count(b, 'handling')}; A's late write was refused`,
  );
} catch (error) {
  say(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  for (const consumer of consumers) {
    consumer.process.kill('SIGKILL');
  }
  admin.disconnect();
  ownServer?.stop();
}

function startConsumer(name: string): Consumer {
  const script = fileURLToPath(new URL('./consumer.js', import.meta.url));
  const child = spawn(process.execPath, [script, '--name', name, '--redis', address], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const consumer: Consumer = { name, process: child, lines: [], arrivals: [] };
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      consumer.lines.push(line);
      consumer.arrivals.push(performance.now());
      console.log(line);
    }
  });
  consumers.push(consumer);
  return consumer;
}

function firstArrival(consumer: Consumer, word: string): number {
  return consumer.arrivals[consumer.lines.findIndex((line) => line.includes(word))] ?? Number.NaN;
}

function count(consumer: Consumer, word: string): number {
  return consumer.lines.filter((line) => line.includes(word)).length;
}

async function until(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + stepTimeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${stepTimeoutMs} ms waiting until ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function startRedisServer(): Promise<{ readonly port: number; stop(): void }> {
  const port = await freePort();
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const failed = new Promise<never>((_, reject) => {
    server.once('error', (error) => {
      reject(
        new Error(
          `could not start redis-server (${error.message}); install it (apt-get install redis-server) or pass --redis host:port`,
        ),
      );
    });
  });
  try {
    await Promise.race([answersPing(port), failed]);
  } catch (error) {
    server.kill('SIGKILL');
    throw error;
  }
  return { port, stop: () => server.kill('SIGTERM') };
}

/** Resolves once a redis-server on `port` answers PING; rejects after 10 s. */
async function answersPing(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answered = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('error', () => {
        resolve(false);
      });
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (reply) => {
        socket.destroy();
        resolve(reply.toString().startsWith('+PONG'));
      });
    });
    if (answered) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`redis-server on port ${port} did not answer PING within 10 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const bound = probe.address();
      probe.close(() => {
        if (bound !== null && typeof bound === 'object') {
          resolve(bound.port);
        } else {
          reject(new Error('the probe socket has no port'));
        }
      });
    });
  });
}
