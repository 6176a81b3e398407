// The partitioned-consumers story, for its CLI (run-demo.ts) and its test: three node processes of one partitioned
// subscription over one Redis and a shared log the demo keeps appending to. One is stopped beyond its lease and
// continued (its late write is refused), another is killed (its partitions move), and every partition's checkpoint
// then reaches the end of the log.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { partitionOf, RedisCheckpointStorage } from '../../runtime/index.js';
import { eventually } from '../../test/support/leases/event-log.js';
import {
  defaultRedisLeaseKeyPrefix,
  defaultRedisMembershipKeyPrefix,
  redisLeaseKeys,
  redisMembershipKeys,
} from '../../runtime/store-layout-entry.js';
import {
  demoEventsKey,
  demoLeaseTimeMs,
  demoName,
  demoPartitions,
  demoProjectionPrefix,
} from './partitions-settings.js';

const stepTimeoutMs = 30_000;
/** Resolves once `condition` holds; rejects naming the step after {@link stepTimeoutMs}. */
const until = (what: string, condition: () => boolean | Promise<boolean>): Promise<void> =>
  eventually(what, condition, stepTimeoutMs);
/** Events appended to the log every 50 ms while the story runs: 1,000 a second. */
const eventsPerTick = 50;
const streams = 64;

/** The three nodes of the story. */
export const nodeNames = ['node-a', 'node-b', 'node-c'] as const;

/** One of {@link nodeNames}. */
export type NodeName = (typeof nodeNames)[number];

/** Options of {@link runPartitionsDemo}. */
export interface PartitionsDemoOptions {
  /** `host:port` of the Redis the nodes share; the demo's keys on it are reset first. */
  readonly redis: string;
  /** Prints one line of the story. */
  readonly say: (line: string) => void;
  /** Prints one line a node printed, already prefixed with its name. */
  readonly echo: (line: string) => void;
  /** The compiled node to spawn; the partition-node.js beside this module by default. */
  readonly nodeScript?: string;
}

/** What the story ended with. */
export interface PartitionsDemoOutcome {
  /** The node stopped beyond its lease, and the partition whose late checkpoint write was refused. */
  readonly refused: { readonly node: NodeName; readonly partition: number };
  /** The partitions the killed node owned, and how long after the kill the last of them was owned again. */
  readonly moved: { readonly node: NodeName; readonly partitions: readonly number[]; readonly afterMs: number };
  /** The events each node reported handling, second by second. */
  readonly eventsPerSecond: Readonly<Record<NodeName, readonly number[]>>;
  /** The log's length once the demo stopped appending. */
  readonly logLength: number;
  /** Each partition's checkpoint at the end: at or past the partition's last event. */
  readonly checkpoints: readonly (string | undefined)[];
}

interface Node {
  readonly name: NodeName;
  readonly process: ChildProcess;
  readonly lines: string[];
  owned: readonly number[];
  readonly rates: number[];
}

/**
 * Runs the story to its end: resolves once the stopped node's late write was refused, the killed node's partitions
 * were owned by the others and every partition's checkpoint reached the end of the log; rejects naming the step that
 * did not happen within 30 s. Every node process is gone when it settles.
 */
export async function runPartitionsDemo(options: PartitionsDemoOptions): Promise<PartitionsDemoOutcome> {
  const { redis, say } = options;
  const [host = '127.0.0.1', port = '6379'] = redis.split(':');
  const admin = new Redis({ host, port: Number(port) });
  const storage = new RedisCheckpointStorage(admin);
  const projection = new RedisCheckpointStorage(admin, { keyPrefix: demoProjectionPrefix });
  const ids = Array.from({ length: demoPartitions }, (_, partition) => `${demoName}/${partition}`);
  const nodes = new Map<NodeName, Node>();
  let appended = 0;
  let producing: ReturnType<typeof setInterval> | undefined;
  try {
    const membership = redisMembershipKeys(defaultRedisMembershipKeyPrefix, demoName);
    const leaseKeys = ids.flatMap((id) => {
      const { lease, token } = redisLeaseKeys(defaultRedisLeaseKeyPrefix, id);
      return [lease, token];
    });
    await admin.del(demoEventsKey, membership.members, membership.partitions, ...leaseKeys);
    await Promise.all(ids.flatMap((id) => [storage.delete(id), projection.delete(id)]));
    producing = setInterval(() => {
      const events = Array.from({ length: eventsPerTick }, (_, index) => {
        const n = appended + index + 1;
        return `stream-${n % streams}:${n}`;
      });
      appended += eventsPerTick;
      void admin.rpush(demoEventsKey, ...events);
    }, 50);
    say(
      `redis at ${redis}; ${demoName} has ${demoPartitions} partitions; appending 1,000 events a second to ` +
        `${demoEventsKey}, over ${streams} streams; lease ${demoLeaseTimeMs} ms`,
    );
    for (const name of nodeNames) {
      nodes.set(name, spawnNode(name, options));
    }
    const [a, b, c] = nodeNames.map((name) => nodes.get(name) as Node) as [Node, Node, Node];
    await until('the three nodes own disjoint shares of every partition', () => balanced([a, b, c]));
    say(`balanced: ${[a, b, c].map((node) => `${node.name} owns ${node.owned.join(',')}`).join('; ')}`);
    await sleep(2_000);

    say('SIGUSR2 node-b: stop yourself in the middle of your next event');
    b.process.kill('SIGUSR2');
    await until('node-b has stopped itself mid-event', () => b.lines.some((line) => line.includes('freezing')));
    const stoppedAt = performance.now();
    const frozen = /partition (\d+), token (\d+)/u.exec(b.lines.find((line) => line.includes('freezing')) ?? '');
    const partition = Number(frozen?.[1]);
    const zombieToken = BigInt(frozen?.[2] ?? '0');
    await until(`another node owns partition ${partition}`, () =>
      [a, c].some((node) => node.owned.includes(partition)),
    );
    const taker = [a, c].find((node) => node.owned.includes(partition))?.name ?? '?';
    say(
      `partition ${partition} moved to ${taker} ${Math.round(performance.now() - stoppedAt)} ms after node-b stopped ` +
        `(its membership expired, the others settled, its lease of ${demoLeaseTimeMs} ms ran out)`,
    );
    const id = `${demoName}/${partition}`;
    await until(`${taker} has written ${id}'s projection with its newer token`, async () => {
      const version = await projection.writeVersion(id);
      return version !== undefined && version > zombieToken;
    });
    say(`${id}'s projection now holds version ${await projection.writeVersion(id)}, written by ${taker}`);
    b.process.kill('SIGCONT');
    say("SIGCONT node-b: the zombie finishes its event and writes the partition's projection with its old token");
    await until("node-b's late write is refused", () => b.lines.some((line) => line.includes('REFUSED')));
    say(`node-b's late write to ${id} was refused by the fence; node-b stops that partition and rejoins`);
    await until('node-b rejoins and the three nodes are balanced again', () => balanced([a, b, c]));
    say(`balanced again: ${[a, b, c].map((node) => `${node.name} owns ${node.owned.join(',')}`).join('; ')}`);

    const orphaned = c.owned;
    c.process.kill('SIGKILL');
    const killedAt = performance.now();
    say(`SIGKILL node-c, which owned ${orphaned.join(',')}`);
    await until("node-a and node-b own every partition, node-c's among them", () => balanced([a, b]));
    const afterMs = Math.round(performance.now() - killedAt);
    for (const node of [a, b]) {
      const taken = orphaned.filter((p) => node.owned.includes(p));
      say(`${node.name} took ${taken.length === 0 ? 'none' : taken.join(',')} of node-c's partitions`);
    }
    say(`every partition owned again ${afterMs} ms after the kill (lease ${demoLeaseTimeMs} ms)`);

    clearInterval(producing);
    producing = undefined;
    await sleep(100);
    const logLength = await admin.llen(demoEventsKey);
    // A partition's last event: where its checkpoint must get to, whoever handled it.
    const lastEvents = new Map<string, number>();
    for (let n = logLength; n > 0 && lastEvents.size < demoPartitions; n -= 1) {
      const id = `${demoName}/${partitionOf(`stream-${n % streams}`, demoPartitions)}`;
      if (!lastEvents.has(id)) {
        lastEvents.set(id, n);
      }
    }
    let checkpoints: (string | undefined)[] = [];
    await until("every partition's checkpoint reaches its last event", async () => {
      checkpoints = await Promise.all(ids.map((id) => storage.read(id)));
      return ids.every((id, index) => Number(checkpoints[index] ?? 0) >= (lastEvents.get(id) ?? 0));
    }).catch((error: unknown) => {
      throw new Error(
        `${(error as Error).message}; the checkpoints are at ${checkpoints.join(', ')}, the last events at ` +
          ids.map((id) => lastEvents.get(id)).join(', '),
        { cause: error },
      );
    });
    say(`every partition's checkpoint reached its last event (log length ${logLength}): ${checkpoints.join(', ')}`);
    for (const node of [a, b]) {
      node.process.kill('SIGTERM');
    }
    await Promise.all([a, b].map(exited));
    for (const node of [a, b, c]) {
      const busy = node.rates.filter((rate) => rate > 0).sort((x, y) => x - y);
      const median = busy[Math.floor(busy.length / 2)] ?? 0;
      say(`${node.name}: median ${median} events/s over its ${busy.length} busy seconds, peak ${busy.at(-1) ?? 0}`);
    }
    return {
      refused: { node: 'node-b', partition },
      moved: { node: 'node-c', partitions: orphaned, afterMs },
      eventsPerSecond: { 'node-a': a.rates, 'node-b': b.rates, 'node-c': c.rates },
      logLength,
      checkpoints,
    };
  } finally {
    clearInterval(producing);
    for (const node of nodes.values()) {
      node.process.kill('SIGKILL');
    }
    admin.disconnect();
  }
}

/** Resolves once `node`'s process has exited. */
function exited(node: Node): Promise<void> {
  return new Promise((resolve) => {
    if (node.process.exitCode !== null || node.process.signalCode !== null) {
      resolve();
      return;
    }
    node.process.once('exit', () => {
      resolve();
    });
  });
}

/** Whether `nodes` own every partition between them, each at least one, no partition twice. */
function balanced(nodes: readonly Node[]): boolean {
  const owned = nodes.flatMap((node) => node.owned);
  return (
    nodes.every((node) => node.owned.length > 0) &&
    owned.length === demoPartitions &&
    new Set(owned).size === demoPartitions
  );
}

function spawnNode(name: NodeName, options: PartitionsDemoOptions): Node {
  const script = options.nodeScript ?? fileURLToPath(new URL('./partition-node.js', import.meta.url));
  const child = spawn(process.execPath, [script, '--name', name, '--redis', options.redis], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const node: Node = { name, process: child, lines: [], owned: [], rates: [] };
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      node.lines.push(line);
      const owns = /^\[\S+\] owns \d+ partitions: (.*)$/u.exec(line);
      if (owns !== null) {
        node.owned = owns[1] === '-' ? [] : (owns[1] ?? '').split(',').map(Number);
      }
      const rate = /^\[\S+\] (\d+) events\/s$/u.exec(line);
      if (rate === null) {
        options.echo(line);
      } else {
        node.rates.push(Number(rate[1]));
        // Rates are printed every few seconds, not every second, to keep the story readable.
        if (node.rates.length % 3 === 0) {
          options.echo(line);
        }
      }
    }
  });
  return node;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
