// The competing-consumers story, shared by its own CLI (run-demo.ts) and the observability example: two consumer
// processes over one real Redis; the lease holder stops (SIGSTOP) in the middle of an event, the other takes the
// lease over, and when the stopped one is continued its late checkpoint write is refused by the fence.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { RedisCheckpointStorage } from '../../runtime/index.js';
import { demoEventsKey, demoLeaseTimeMs, demoSubscriptionId } from './demo-settings.js';

const eventCount = 60;
const stepTimeoutMs = 30_000;

/** The two consumers of the story: A holds the lease first and is stopped, B takes it over. */
export type ConsumerName = 'A' | 'B';

/** Options of {@link runCompetingConsumersDemo}. */
export interface CompetingConsumersDemoOptions {
  /** `host:port` of the Redis both consumers share; the demo's keys on it are reset first. */
  readonly redis: string;
  /** Prints one line of the story. */
  readonly say: (line: string) => void;
  /** Prints one line a consumer printed, already prefixed with its name. */
  readonly echo: (line: string) => void;
  /** When given, each consumer serves its metrics at `http://127.0.0.1:<port>/metrics` (`--metrics-port`). */
  readonly metricsPorts?: Readonly<Record<ConsumerName, number>>;
  /** The compiled consumer to spawn; the consumer.js beside this module by default. */
  readonly consumerScript?: string;
}

/** What the story ended with. */
export interface CompetingConsumersDemoOutcome {
  /** Events each consumer started handling. */
  readonly handled: Readonly<Record<ConsumerName, number>>;
  /** What each consumer's /metrics served just before it was stopped; only with `metricsPorts`. */
  readonly scraped?: Readonly<Record<ConsumerName, string>>;
}

interface Consumer {
  readonly process: ChildProcess;
  readonly lines: string[];
  /** When each line arrived, `performance.now()`. */
  readonly arrivals: number[];
}

/**
 * Runs the story to its end: resolves once A's late write was refused and B checkpointed the last event, rejects
 * naming the step that did not happen within 30 s. Both consumer processes are gone when it settles.
 */
export async function runCompetingConsumersDemo(
  options: CompetingConsumersDemoOptions,
): Promise<CompetingConsumersDemoOutcome> {
  const { redis, say, metricsPorts } = options;
  const [host = '127.0.0.1', port = '6379'] = redis.split(':');
  const admin = new Redis({ host, port: Number(port) });
  const storage = new RedisCheckpointStorage(admin);
  const consumers: Consumer[] = [];
  const startConsumer = (name: ConsumerName): Consumer => {
    const consumer = spawnConsumer(name, options);
    consumers.push(consumer);
    return consumer;
  };
  const scrape = async (name: ConsumerName): Promise<string | undefined> =>
    metricsPorts === undefined ? undefined : (await fetch(`http://127.0.0.1:${metricsPorts[name]}/metrics`)).text();

  try {
    await storage.delete(demoSubscriptionId);
    await admin.del(demoEventsKey);
    await admin.rpush(demoEventsKey, ...Array.from({ length: eventCount }, (_, index) => `order-${index + 1}`));
    say(`redis at ${redis}; ${eventCount} events in ${demoEventsKey}`);

    const a = startConsumer('A');
    await until('A holds the lease', () => count(a, 'lease granted') > 0);
    const b = startConsumer('B');
    await until('B has started and waits for the lease', () => count(b, 'started') > 0);
    await until('A has handled 10 events', () => count(a, 'handling') >= 10);

    say('SIGUSR2 A: stop yourself in the middle of your next event');
    a.process.kill('SIGUSR2');
    await until('A has stopped itself mid-event', () => count(a, 'freezing') > 0);
    const stoppedAt = performance.now();
    say('A is stopped mid-event: a zombie that still believes it holds the lease');

    await until('B takes the lease over', () => count(b, 'lease granted') > 0);
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
    await until("A's late checkpoint write is refused", () => count(a, 'REFUSED') > 0);
    const scrapedA = await scrape('A');
    a.process.kill('SIGKILL');
    say('SIGKILL A: it is gone for good');

    await until(
      `B checkpoints the last event (position ${eventCount - 1})`,
      async () => (await storage.read(demoSubscriptionId)) === String(eventCount - 1),
    );
    const scrapedB = await scrape('B');
    b.process.kill('SIGTERM');
    await new Promise((resolve) => b.process.once('exit', resolve));
    const handled = { A: count(a, 'handling'), B: count(b, 'handling') };
    say(
      `done: stored checkpoint ${await storage.read(demoSubscriptionId)}, version ${await storage.writeVersion(demoSubscriptionId)}; ` +
        `A handled ${handled.A} events, B handled ${handled.B}; A's late write was refused`,
    );
    return scrapedA === undefined || scrapedB === undefined
      ? { handled }
      : { handled, scraped: { A: scrapedA, B: scrapedB } };
  } finally {
    for (const consumer of consumers) {
      consumer.process.kill('SIGKILL');
    }
    admin.disconnect();
  }
}

function spawnConsumer(name: ConsumerName, options: CompetingConsumersDemoOptions): Consumer {
  const script = options.consumerScript ?? fileURLToPath(new URL('./consumer.js', import.meta.url));
  const metricsPort = options.metricsPorts?.[name];
  const metricsArgs = metricsPort === undefined ? [] : ['--metrics-port', String(metricsPort)];
  const child = spawn(process.execPath, [script, '--name', name, '--redis', options.redis, ...metricsArgs], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const consumer: Consumer = { process: child, lines: [], arrivals: [] };
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      consumer.lines.push(line);
      consumer.arrivals.push(performance.now());
      options.echo(line);
    }
  });
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
