import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/leases/event-log.js';
import { buildRuntime, type BuiltRuntime } from '../../support/processes/build-runtime.js';
import { useSharedRedis } from '../../support/redis/index.js';

// Issue 11, defect 3, across processes: two processes given the same subscriberId never hold one lease at once,
// because the owner stored in the lease carries each strategy instance's nonce. Both run a DurableSubscription
// over one real redis-server (the shared one, on the suite's database: only the node processes are killed); each
// handled event is recorded with the process and the token it was delivered under.

const events = 300;
const leaseTimeMs = 600;

/** One node: a DurableSubscription with subscriberId "node-a", whoever starts it. */
const nodeScript = `
import { Redis } from 'ioredis';
import { DurableSubscription, RedisCheckpointStorage, RedisLeaseStrategy } from './runtime/index.js';

const [host] = process.argv.slice(2);
const [port, db, events, leaseTimeMs] = process.argv.slice(3).map(Number);
const redis = new Redis({ host, port, db, commandTimeout: 2000, autoResendUnfulfilledCommands: false });
const strategy = new RedisLeaseStrategy(redis, { keyPrefix: 'same-id:lease:', leaseTimeMs });
const storage = new RedisCheckpointStorage(redis, { keyPrefix: 'same-id:checkpoint:' });
const subscription = new DurableSubscription({
  storage, strategy, subscriberId: 'node-a', holdBackPollMs: 10, retryDelayMs: 50, onError: () => undefined,
});
async function* source(from, signal) {
  for (let position = from === undefined ? 0 : Number(from) + 1; position < events && !signal.aborted; position += 1) {
    yield { position: String(position), event: position };
  }
}
subscription.subscribe('orders', source, async (event) => {
  await redis.rpush('same-id:handled', process.pid + ' ' + event + ' ' + strategy.fencingToken('orders'));
  await new Promise((resolve) => setTimeout(resolve, 8));
}, { startPosition: '-1' });
process.stdout.write('subscribed\\n');
`;

const shared = useSharedRedis();
let runtime: BuiltRuntime | undefined;
let admin: Redis | undefined;
const children: ChildProcess[] = [];

beforeAll(() => {
  runtime = buildRuntime();
  writeFileSync(join(runtime.directory, 'node.mjs'), nodeScript);
  admin = shared.connect();
});

afterAll(() => {
  for (const child of children) {
    child.kill('SIGKILL');
  }
  runtime?.remove();
});

function startNode(): Promise<ChildProcess> {
  if (runtime === undefined) {
    throw new Error('The runtime build of this suite did not finish; see the beforeAll error.');
  }
  const args = [shared.host, shared.port, shared.database, events, leaseTimeMs].map(String);
  const child = spawn(process.execPath, ['node.mjs', ...args], {
    cwd: runtime.directory,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => {
      resolve(child);
    });
    child.once('exit', (code) => {
      reject(new Error(`node process exited with ${String(code)} before subscribing`));
    });
  });
}

describe('two processes with the same subscriberId on one real redis-server', () => {
  it('never deliver under one token; when the holder dies the other takes over and nothing moves backward', async () => {
    const redis = admin;
    if (redis === undefined) {
      throw new Error('no admin connection');
    }
    const [first, second] = await Promise.all([startNode(), startNode()]);
    const stored = async (): Promise<number> => Number((await redis.get('same-id:checkpoint:orders')) ?? '-1');
    const seen: number[] = [];
    const watching = { active: true };
    const watcher = (async () => {
      while (watching.active) {
        seen.push(await stored());
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    try {
      await eventually('a third of the events are checkpointed', async () => (await stored()) >= events / 3);
      const [holderPid] = ((await redis.lindex('same-id:handled', -1)) ?? '').split(' ');
      const holder = [first, second].find((child) => String(child.pid) === holderPid);
      expect(holder).toBeDefined();
      holder?.kill('SIGKILL');
      await eventually(
        'the other process checkpoints every event',
        async () => (await stored()) === events - 1,
        30_000,
      );
    } finally {
      watching.active = false;
      await watcher;
    }

    const handled = (await redis.lrange('same-id:handled', 0, -1)).map((line) => {
      const [pid, event, token] = line.split(' ');
      return { pid, event: Number(event), token };
    });
    const pidsByToken = new Map<string | undefined, Set<string | undefined>>();
    for (const { pid, token } of handled) {
      pidsByToken.set(token, (pidsByToken.get(token) ?? new Set()).add(pid));
    }
    for (const [token, pids] of pidsByToken) {
      expect(pids.size, `processes that delivered under token ${token}`).toBe(1);
    }
    expect(new Set(handled.map(({ pid }) => pid)).size).toBe(2);
    expect(new Set(handled.map(({ event }) => event)).size).toBe(events);
    for (let index = 1; index < seen.length; index += 1) {
      expect(seen[index] ?? -1, `read ${index}`).toBeGreaterThanOrEqual(seen[index - 1] ?? -1);
    }
  }, 90_000);
});
