import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, RedisCheckpointStorage } from '../../runtime/index.js';
import { RedisDualAnchorCheckpointStore } from '../../runtime/dual-anchor-entry.js';
import { redisLeaseKeys } from '../../runtime/store-layout-entry.js';
import { clusterHashSlot } from '../../runtime/redis/cluster-hash-slot.js';
import { buildRuntime, type BuiltRuntime } from '../support/processes/build-runtime.js';
import { startRedisCluster, startReplicatedRedisCluster, type RedisAddress } from '../support/redis/index.js';
import { SlotMigrator } from '../support/redis/slot-migrator.js';

// Issue 33, resharding: fenced writes and grants go on while the slots they live in are migrated between masters,
// hundreds of times, and the workers holding the leases are SIGSTOPped past their lease (zombies that write with
// their old token when continued). Nothing a migration does may reach a caller: no write and no grant fails with
// MOVED, ASK or TRYAGAIN (or ioredis giving up on them); and fencing holds: no token granted twice, no checkpoint
// seen going backward, every subscription's checkpoint and version key agreeing with its last accepted write at the
// end. Each subscription's keys (lease, token, checkpoint, version, a dual-anchor record) share one slot with filler
// keys, and a slot is MIGRATEd three keys at a time, so multi-key scripts meet a slot whose keys are split (TRYAGAIN).
// In the sentinel project: a 3+3 Cluster fails over after a 1 s node timeout, which the load of other suites could
// set off (doc/testing.md).

const trialMs = 15_000;
const leaseTimeMs = 600;
const workers = 4;
const subscriptions = 8;
const fillersPerSlot = 6;
const keysPerMigrate = 3;
const pauseBetweenMigrationsMs = 20;
const clientOptions = { redisOptions: { commandTimeout: 2_000, autoResendUnfulfilledCommands: false } };
const storageOptions = { keyPrefix: 'trial:cp:', versionKeyPrefix: 'trial:version:' };

/** A worker process: competes for every subscription's lease and, while it holds one, checkpoints over it. */
const workerScript = `
import { Cluster } from 'ioredis';
import { CheckpointWriteCondition, RedisCheckpointStorage, RedisLeaseStrategy } from './runtime/index.js';

const { nodes, ids, leaseTimeMs, name, clientOptions, storageOptions } = JSON.parse(process.argv[2]);
const client = new Cluster(nodes, clientOptions);
client.on('error', () => undefined);
const report = { writes: 0, accepted: 0, refused: 0, failed: {}, grants: [], highest: {} };
const tally = (call, error) => {
  const text = call + ': ' + String(error instanceof Error ? error.message : error);
  report.failed[text] = (report.failed[text] ?? 0) + 1;
};
const strategy = new RedisLeaseStrategy(client, {
  keyPrefix: 'trial:lease:', leaseTimeMs, onError: (error) => tally('lease', error),
});
const storage = new RedisCheckpointStorage(client, storageOptions);
strategy.onGranted((id) => report.grants.push([id, String(strategy.fencingToken(id))]));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const offsetIn = (checkpoint) => Number((checkpoint ?? '0@0').split('@')[0]);
let stopping = false;
let lastAcceptedAt = 0;

async function checkpoint(id) {
  const checkpointId = '{' + id + '}';
  let held;
  let offset = 0;
  while (!stopping) {
    const token = strategy.hasLock(id, name) ? strategy.fencingToken(id) : undefined;
    if (token === undefined) {
      held = undefined;
      await sleep(5);
      continue;
    }
    if (token !== held) {
      try {
        offset = offsetIn(await storage.read(checkpointId));
      } catch (error) {
        tally('read', error);
        await sleep(10);
        continue;
      }
      held = token;
    }
    // Handling an event: a SIGSTOP here sends the next write with the old token after the lease moved on.
    await sleep(1);
    offset += 1;
    report.writes += 1;
    try {
      await storage.save(checkpointId, offset + '@' + held, CheckpointWriteCondition.notOlderThan(held));
      report.accepted += 1;
      lastAcceptedAt = Date.now();
      // Writes under one token go up one by one, so the highest is the last accepted under the highest token.
      const best = report.highest[checkpointId];
      if (best === undefined || held >= BigInt(best.split('@')[1])) {
        report.highest[checkpointId] = offset + '@' + held;
      }
    } catch (error) {
      if (error.name === 'CheckpointWriteConditionNotFulfilledError') {
        report.refused += 1;
      } else {
        tally('write', error);
      }
      held = undefined;
      await sleep(10);
    }
  }
}

const progress = setInterval(() => process.send({ type: 'progress', lastAcceptedAt }), 50);
const loops = ids.map((id) => strategy.register(id, name).then(() => checkpoint(id)));
process.on('message', async () => {
  stopping = true;
  await Promise.all(loops);
  await strategy.shutdown();
  clearInterval(progress);
  process.send({ type: 'report', report }, () => {
    client.disconnect();
    process.disconnect();
  });
});
`;

/** What one worker reports at the end. */
interface WorkerReport {
  readonly writes: number;
  readonly accepted: number;
  readonly refused: number;
  /** Failed calls (refusals aside) by `"<read|write|lease>: <message>"`. */
  readonly failed: Record<string, number>;
  /** Every grant: the subscription id and the token. */
  readonly grants: readonly [string, string][];
  /** The accepted write with the highest token (then offset), by checkpoint id. */
  readonly highest: Record<string, string>;
}

interface Worker {
  readonly process: ChildProcess;
  lastAcceptedAt: number;
  readonly report: Promise<WorkerReport>;
}

/** A topology the trial runs on. */
interface Topology {
  /** The start-up nodes for clients. */
  readonly nodes: readonly RedisAddress[];
  /** Each master's own address, for the migrator. */
  readonly masters: readonly RedisAddress[];
  stop(): Promise<void>;
}

/** One checkpoint `"<offset>@<token>"` as a comparable pair; -1/-1 for none. */
function positionOf(text: string | null | undefined): { offset: number; token: bigint } {
  if (text === null || text === undefined) {
    return { offset: -1, token: -1n };
  }
  const [offset, token] = text.split('@');
  return { offset: Number(offset), token: BigInt(token ?? '-1') };
}

function isBefore(one: { offset: number; token: bigint }, other: { offset: number; token: bigint }): boolean {
  return one.token < other.token || (one.token === other.token && one.offset < other.offset);
}

/** The redirection a failure came from (`MOVED`, `ASK`, `TRYAGAIN`, or ioredis giving up following them), if any. */
function redirectionIn(message: string): string | undefined {
  return /\b(MOVED|ASK|TRYAGAIN)\b|Too many Cluster redirections/u.exec(message)?.[0];
}

/**
 * The failures that came from a redirection (`redirections`), or the others, counted by call and redirection
 * (`"write: MOVED"`), or by call and message.
 */
function failureKinds(failures: ReadonlyMap<string, number>, redirections: boolean): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const [call, count] of failures) {
    const redirection = redirectionIn(call);
    if ((redirection !== undefined) === redirections) {
      const kind = redirection === undefined ? call.slice(0, 160) : `${call.split(':')[0] ?? ''}: ${redirection}`;
      kinds[kind] = (kinds[kind] ?? 0) + count;
    }
  }
  return kinds;
}

/** Every `"<id>@<token>"` granted to more than one worker. */
function duplicatedGrants(reports: readonly WorkerReport[]): string[] {
  const holders = new Map<string, Set<number>>();
  reports.forEach((report, worker) => {
    for (const [id, token] of report.grants) {
      holders.set(`${id}@${token}`, (holders.get(`${id}@${token}`) ?? new Set()).add(worker));
    }
  });
  return [...holders].filter(([, granted]) => granted.size > 1).map(([grant]) => grant);
}

/** The accepted write of `checkpointId` with the highest token, then offset, over every worker. */
function highestAccepted(reports: readonly WorkerReport[], checkpointId: string): string | undefined {
  let highest: string | undefined;
  for (const candidate of reports.map((report) => report.highest[checkpointId])) {
    if (candidate !== undefined && (highest === undefined || isBefore(positionOf(highest), positionOf(candidate)))) {
      highest = candidate;
    }
  }
  return highest;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let runtime: BuiltRuntime | undefined;

beforeAll(() => {
  runtime = buildRuntime();
  writeFileSync(join(runtime.directory, 'resharding-worker.mjs'), workerScript);
});

afterAll(() => {
  runtime?.remove();
});

const ids = Array.from({ length: subscriptions }, (_, index) => `sub-${index}`);
const slots = ids.map((id) => clusterHashSlot(id));

describe.each([
  {
    name: 'Cluster 3+3',
    start: async (): Promise<Topology> => {
      const cluster = await startReplicatedRedisCluster();
      return {
        nodes: cluster.nodes,
        masters: [0, 5461, 10923].map((slot) => cluster.shardOf(slot).master),
        stop: () => cluster.stop(),
      };
    },
  },
  {
    name: 'Cluster 3+0',
    start: async (): Promise<Topology> => {
      const cluster = await startRedisCluster();
      return { nodes: cluster.nodes, masters: cluster.nodes, stop: () => cluster.stop() };
    },
  },
])('resharding on a $name', ({ name, start }) => {
  let topology: Topology | undefined;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    topology = await start();
  });

  afterAll(async () => {
    for (const child of children) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
    await topology?.stop();
  });

  function startWorker(index: number): Worker {
    if (runtime === undefined || topology === undefined) {
      throw new Error('The runtime build or the Cluster of this suite did not start; see the beforeAll error.');
    }
    const config = { nodes: topology.nodes, ids, leaseTimeMs, name: `worker-${index}`, clientOptions, storageOptions };
    const child = spawn(process.execPath, ['resharding-worker.mjs', JSON.stringify(config)], {
      cwd: runtime.directory,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(child);
    const worker: Worker = {
      process: child,
      lastAcceptedAt: 0,
      report: new Promise((resolve, reject) => {
        child.on('message', (message: { type: string; lastAcceptedAt?: number; report?: WorkerReport }) => {
          if (message.type === 'progress') {
            worker.lastAcceptedAt = message.lastAcceptedAt ?? 0;
          } else if (message.report !== undefined) {
            resolve(message.report);
          }
        });
        child.once('exit', (code) => {
          reject(new Error(`worker-${index} exited with ${String(code)} before reporting`));
        });
      }),
    };
    return worker;
  }

  it('surfaces no redirection to callers, grants no token twice and never moves a checkpoint backward', async () => {
    if (topology === undefined) {
      throw new Error('The Cluster of this suite did not start; see the beforeAll error.');
    }
    const startedAt = performance.now();
    const client = new Cluster([...topology.nodes], clientOptions);
    client.on('error', () => undefined);
    const migrator = await SlotMigrator.connect(topology.masters);
    const anchors = new RedisDualAnchorCheckpointStore(client, { keyPrefix: 'trial:anchors:' });
    const checkpoints = new RedisCheckpointStorage(client, storageOptions);
    try {
      for (const id of ids) {
        for (let filler = 0; filler < fillersPerSlot; filler += 1) {
          await client.set(`trial:filler:{${id}}:${filler}`, 'x');
        }
      }
      const pool = Array.from({ length: workers }, (_, index) => startWorker(index));
      const figures = { migrations: 0, keysMoved: 0, zombies: 0, backward: 0, anchorWrites: 0 };
      /** Failed calls of the workers, the observer and the dual-anchor writer, by `"<call>: <message>"`. */
      const failures = new Map<string, number>();
      const fail = (call: string, error: unknown): void => {
        const key = `${call}: ${error instanceof Error ? error.message : String(error)}`;
        failures.set(key, (failures.get(key) ?? 0) + 1);
      };
      const deadline = Date.now() + trialMs;
      const running = (): boolean => Date.now() < deadline;

      const migrating = (async () => {
        while (running()) {
          const slot = slots[figures.migrations % slots.length] ?? 0;
          const to = (migrator.ownerOf(slot) + 1 + Math.floor(Math.random() * 2)) % migrator.masterCount;
          figures.keysMoved += await migrator.move(slot, to, keysPerMigrate);
          figures.migrations += 1;
          await sleep(pauseBetweenMigrationsMs);
        }
      })();
      const stoppingZombies = (async () => {
        await sleep(2 * leaseTimeMs);
        while (running()) {
          const holder = pool.reduce((latest, worker) =>
            worker.lastAcceptedAt > latest.lastAcceptedAt ? worker : latest,
          );
          holder.process.kill('SIGSTOP');
          await sleep(2.5 * leaseTimeMs);
          holder.process.kill('SIGCONT');
          figures.zombies += 1;
          await sleep(leaseTimeMs);
        }
      })();
      const observing = (async () => {
        const seen = new Map<string, { offset: number; token: bigint }>();
        while (running()) {
          for (const id of ids) {
            try {
              const read = positionOf(await checkpoints.read(`{${id}}`));
              const before = seen.get(id);
              if (before !== undefined && isBefore(read, before)) {
                figures.backward += 1;
              }
              seen.set(id, read);
            } catch (error) {
              fail('observer read', error);
            }
          }
          await sleep(5);
        }
      })();
      const writingAnchors = (async () => {
        let version = 0;
        while (running()) {
          version += 1;
          for (const id of ids) {
            try {
              await anchors.saveProcessed(
                `{${id}}`,
                String(version),
                new Date(),
                undefined,
                CheckpointWriteCondition.notOlderThan(version),
              );
              figures.anchorWrites += 1;
            } catch (error) {
              fail('dual-anchor write', error);
            }
          }
          await sleep(2);
        }
        return version;
      })();

      const [, , , lastAnchorVersion] = await Promise.all([migrating, stoppingZombies, observing, writingAnchors]);
      for (const worker of pool) {
        worker.process.send('stop');
      }
      const reports = await Promise.all(pool.map(({ report }) => report));

      const sum = (pick: (report: WorkerReport) => number): number =>
        reports.reduce((total, report) => total + pick(report), 0);
      for (const report of reports) {
        for (const [call, count] of Object.entries(report.failed)) {
          failures.set(call, (failures.get(call) ?? 0) + count);
        }
      }
      const redirected = failureKinds(failures, true);
      const duplicated = duplicatedGrants(reports);

      const mismatches: string[] = [];
      for (const id of ids) {
        const checkpointId = `{${id}}`;
        const highest = highestAccepted(reports, checkpointId);
        const stored = await checkpoints.read(checkpointId);
        const version = await checkpoints.writeVersion(checkpointId);
        if (stored !== highest || version !== (highest === undefined ? undefined : positionOf(highest).token)) {
          mismatches.push(`${checkpointId}: stored ${stored} (version ${version}), last accepted ${highest}`);
        }
        const record = await anchors.findByStreamName(checkpointId);
        if (record?.lastProcessedToken !== String(lastAnchorVersion)) {
          mismatches.push(`${checkpointId}: dual-anchor lastProcessed ${JSON.stringify(record?.lastProcessedToken)}`);
        }
        // The lease keys moved too: the token counter must be at least every token granted.
        const counter = await client.get(redisLeaseKeys('trial:lease:', id).token);
        const granted = reports.flatMap((report) => report.grants.filter(([grantee]) => grantee === id));
        if (granted.some(([, token]) => BigInt(token) > BigInt(counter ?? '-1'))) {
          mismatches.push(`${id}: token counter ${counter} below a token granted`);
        }
      }

      const line =
        `${name}: ${figures.migrations} migrations moving ${figures.keysMoved} keys, ${figures.zombies} zombies; ` +
        `${sum((report) => report.writes)} fenced writes (${sum((report) => report.accepted)} accepted, ` +
        `${sum((report) => report.refused)} refused), ${figures.anchorWrites} dual-anchor writes, ` +
        `${sum((report) => report.grants.length)} grants; redirections failed back to callers ${JSON.stringify(redirected)}, ` +
        `${duplicated.length} duplicated tokens, ${figures.backward} backward, ` +
        `${mismatches.length} mismatches; other failures ${JSON.stringify(failureKinds(failures, false))}; ` +
        `${((performance.now() - startedAt) / 1000).toFixed(1)} s`;
      console.log(line);

      expect(figures.migrations, line).toBeGreaterThan(100);
      expect(figures.zombies, line).toBeGreaterThan(3);
      expect(
        sum((report) => report.refused),
        line,
      ).toBeGreaterThan(0);
      expect(redirected, line).toEqual({});
      expect(duplicated, line).toEqual([]);
      expect(figures.backward, line).toBe(0);
      expect(mismatches, line).toEqual([]);
    } finally {
      migrator.close();
      client.disconnect();
    }
  }, 120_000);
});
