import { fork, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { PostgresCheckpointStorage, PostgresLeaseStrategy } from '../../runtime/index.js';
import {
  HistoryRecorder,
  mergeTimedEvents,
  mergeTimedHistories,
  RecordingCheckpointStorage,
  type TimedHistoryEvent,
} from '../../test/support/linearizability/index.js';
import { startPostgresServer, startReplicatedPostgres } from '../../test/support/postgres/index.js';
import {
  startRedisCluster,
  startRedisSentinel,
  startRedisServer,
  withAdminConnection,
  type PartitionSide,
  type RedisSentinelTopology,
  type RedisServerProcess,
} from '../../test/support/redis/index.js';
import { analyseFailoverSoak } from './failover-epochs.js';
import { FaultInjector, type ServerFault, type ServerFaultKind } from './fault-injector.js';
import { postgresFailoverFaults } from './postgres-failover-faults.js';
import { postgresServerFaults } from './postgres-server-faults.js';
import { redisServerFaults } from './redis-server-faults.js';
import { sentinelServerFaults, type FailoverRecord } from './sentinel-server-faults.js';
import { connectSoakBackend } from './soak-backend.js';
import { analyseSoakHistory } from './soak-analysis.js';
import { soakReportLines, type DuplicatedToken, type FailoverReportInput } from './soak-report.js';
import type { SoakCommand, SoakGrant, SoakTarget, SoakWorkerMessage } from './soak-messages.js';
import { parseSoakOptions, type SoakOptions } from './soak-options.js';
import { partitionChurnSoak } from './partition-churn-soak.js';
import { createSoakPool } from './soak-postgres-pool.js';

// The fencing soak (issue 7): worker processes hold short leases and checkpoint with their tokens while the harness
// stalls and SIGSTOPs them and pauses, crashes and restarts Redis or PostgreSQL; every storage call is recorded and the merged
// history is checked for linearizability. The last line is the summary; the exit code is 1 when anomalies > 0, 3 when
// the run could not finish (no verdict), and 4 when a Sentinel run drove fewer failovers than --min-failovers.

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface RunningWorker {
  readonly name: string;
  readonly process: ChildProcess;
  readonly events: TimedHistoryEvent[];
  readonly grants: SoakGrant[];
  /** When this worker's last accepted save returned, by the shared monotonic clock. */
  lastAcceptedAt: bigint;
  done: Promise<number | undefined>;
}

async function soak(options: SoakOptions): Promise<number> {
  const cleanups: (() => Promise<void> | void)[] = [];
  try {
    const subscriptionIds = Array.from({ length: options.subscriptions }, (_, index) => `orders-${index}`);
    const failovers: FailoverRecord[] = [];
    const workerNames = Array.from({ length: options.workers }, (_, index) => `worker-${index}`);
    const { target, targetOf, serverFaults, unplannedFailovers } = await startBackend(options, cleanups, {
      subscriptionIds,
      failovers,
      leaseHolder: () => latestWriter(workers)?.process,
      // In a partition, every other worker stays with the cut-off master.
      minorityWorkers: options.partition ? workerNames.filter((_, index) => index % 2 === 0) : undefined,
    });

    const workers: RunningWorker[] = workerNames.map((name) =>
      startWorker(name, targetOf?.(name) ?? target, subscriptionIds, options),
    );
    cleanups.push(() => {
      for (const worker of workers) {
        worker.process.kill('SIGCONT');
        worker.process.kill('SIGKILL');
      }
    });

    const observer = new HistoryRecorder();
    const observerBackend = connectSoakBackend(target);
    cleanups.push(() => observerBackend.close());
    const observed = observerBackend.storage;
    const observing = { active: true };
    const observerLoops = subscriptionIds.map(async (id) => {
      const reader = new RecordingCheckpointStorage(observed, observer, `observer/${id}`);
      while (observing.active) {
        await reader.read(id).catch(() => undefined);
        await sleep(3);
      }
    });

    const faults = new FaultInjector({
      leaseHolder: () => latestWriter(workers)?.process,
      serverFaults,
      leaseMs: options.leaseMs,
      ...(options.loseWritesOnRestart ? { firstFault: 'restart' as const } : {}),
    });
    // Faults start once a worker has checkpointed: before that there is nothing for them to endanger.
    const bootDeadline = performance.now() + 30_000;
    while (workers.every(({ lastAcceptedAt }) => lastAcceptedAt < 0n) && performance.now() < bootDeadline) {
      await sleep(50);
    }
    const started = performance.now();
    faults.start();
    const recordedEvents = (): number => workers.reduce((sum, { events }) => sum + events.length, observer.length);
    while (
      performance.now() - started < options.seconds * 1_000 &&
      recordedEvents() < 2 * options.maxOperations &&
      !faults.failed
    ) {
      await sleep(100);
    }
    // Rejects when a fault failed: no verdict (exit 3 below).
    await faults.stop();
    observing.active = false;
    await Promise.all(observerLoops);
    const stop: SoakCommand = { type: 'stop' };
    for (const worker of workers) {
      if (worker.process.connected) {
        worker.process.send(stop);
      }
    }
    const leaseErrors = await Promise.all(workers.map(({ done }) => done));
    const elapsedSeconds = (performance.now() - started) / 1_000;

    // The final state, read once everything has stopped: every acknowledged write must be accounted for in it.
    for (const id of subscriptionIds) {
      const reader = new RecordingCheckpointStorage(observed, observer, `final/${id}`);
      await reader.read(id);
      await reader.writeVersion(id);
    }

    const parts = [...workers.map(({ events }) => events), observer.timedEvents()];
    let failover: FailoverReportInput | undefined;
    let analysis;
    if (unplannedFailovers === undefined) {
      analysis = analyseSoakHistory(mergeTimedHistories(...parts));
    } else {
      const failoverAnalysis = analyseFailoverSoak(mergeTimedEvents(...parts), failovers);
      analysis = failoverAnalysis;
      failover = {
        analysis: failoverAnalysis,
        records: failovers,
        unplanned: await unplannedFailovers(),
        duplicatedTokens: duplicatedTokens(workers),
      };
    }
    const lines = soakReportLines({
      options,
      elapsedSeconds,
      faults: faults.counts,
      leaseErrors: leaseErrors.reduce<number>((sum, count) => sum + (count ?? 0), 0),
      analysis,
      ...(failover === undefined ? {} : { failover }),
    });
    for (const line of lines) {
      console.log(line);
    }
    if (analysis.anomalies > 0 || (failover?.duplicatedTokens.length ?? 0) > 0) {
      return 1;
    }
    if (failovers.length < options.minFailovers) {
      console.error(
        `soak: ${failovers.length} failovers driven in ${elapsedSeconds.toFixed(1)} s, fewer than the ${options.minFailovers} ` +
          '--min-failovers asks for, so the run says too little about failovers to pass. Give it more --seconds ' +
          '(a failover fault comes about every 9 s on Sentinel), or ask for fewer.',
      );
      return 4;
    }
    return 0;
  } finally {
    for (const cleanup of cleanups.reverse()) {
      await cleanup();
    }
  }
}

/** What the Sentinel faults need from the harness. */
interface SentinelFaultContext {
  readonly subscriptionIds: readonly string[];
  /** Filled with every failover the faults drive. */
  readonly failovers: FailoverRecord[];
  readonly leaseHolder: () => ChildProcess | undefined;
  /** `--partition`: the workers on the cut-off master's side. */
  readonly minorityWorkers: readonly string[] | undefined;
}

/**
 * Starts the store the options name, registers its teardown in `cleanups`, and returns where it is (for the observer,
 * and for each worker when they differ), how to hurt it, and for a failover soak how many failovers happened that the
 * harness did not drive.
 */
async function startBackend(
  options: SoakOptions,
  cleanups: (() => Promise<void> | void)[],
  context: SentinelFaultContext,
): Promise<{
  target: SoakTarget;
  targetOf?: (worker: string) => SoakTarget;
  serverFaults: ReadonlyMap<ServerFaultKind, ServerFault>;
  unplannedFailovers?: () => Promise<number>;
}> {
  if (options.postgresFailover) {
    const topology = await startReplicatedPostgres();
    cleanups.push(() => topology.stop());
    const target = {
      mode: 'postgres',
      connectionString: topology.service.connectionString,
      checkpointTable: 'soak_checkpoints',
      leaseTable: 'soak_leases',
      ...(options.waitForStandbys ? {} : { waitForStandbys: false as const }),
    } as const;
    const admin = createSoakPool(topology.service.connectionString);
    try {
      await new PostgresCheckpointStorage(admin, { table: target.checkpointTable }).createTable();
      await new PostgresLeaseStrategy(admin, { table: target.leaseTable }).createTable();
    } finally {
      await admin.end();
    }
    await topology.waitUntilCaughtUp();
    return {
      target,
      serverFaults: postgresFailoverFaults({ topology, ...context, ...target, leaseMs: options.leaseMs }),
      // Nothing but the harness promotes a standby.
      unplannedFailovers: async () => 0,
    };
  }
  if (options.sentinel) {
    const topology = await startRedisSentinel(options.partition ? { replicas: 2, partitionable: true } : {});
    cleanups.push(() => topology.stop());
    const { minorityWorkers } = context;
    // In a partition a client is on the side its Sentinels' doors and its connection name say; the observer reads
    // from the majority's, whose history is the one checked.
    const on = (side: PartitionSide, connectionName: string): SoakTarget => ({
      mode: 'sentinel',
      ...topology.sentinelOptionsOn(side),
      waitForReplicas: options.waitForReplicas,
      connectionName,
    });
    return {
      target:
        minorityWorkers === undefined
          ? {
              mode: 'sentinel',
              sentinels: topology.sentinelOptions.sentinels,
              name: topology.sentinelOptions.name,
              waitForReplicas: options.waitForReplicas,
            }
          : on('majority', 'majority-observer'),
      ...(minorityWorkers === undefined
        ? {}
        : {
            targetOf: (worker: string) =>
              minorityWorkers.includes(worker)
                ? on('minority', `minority-${worker}`)
                : on('majority', `majority-${worker}`),
          }),
      serverFaults: sentinelServerFaults({
        topology,
        leaseMs: options.leaseMs,
        deposedMaster: options.deposedMaster,
        ...context,
      }),
      unplannedFailovers: async () => (await failoversMadeBy(topology)) - context.failovers.length,
    };
  }
  if (options.postgres) {
    const server = await startPostgresServer();
    cleanups.push(() => server.stop());
    const admin = createSoakPool(server.connectionString);
    cleanups.push(() => admin.end());
    const target = {
      mode: 'postgres',
      connectionString: server.connectionString,
      checkpointTable: 'soak_checkpoints',
      leaseTable: 'soak_leases',
    } as const;
    await new PostgresCheckpointStorage(admin, { table: target.checkpointTable }).createTable();
    await new PostgresLeaseStrategy(admin, { table: target.leaseTable }).createTable();
    return {
      target,
      serverFaults: postgresServerFaults({ server, admin, ...target, leaseMs: options.leaseMs }),
    };
  }
  const servers: RedisServerProcess[] = [];
  let target: SoakTarget;
  if (options.cluster) {
    const cluster = await startRedisCluster();
    cleanups.push(() => cluster.stop());
    servers.push(...cluster.servers);
    target = { mode: 'cluster', nodes: cluster.nodes };
  } else {
    // Every acknowledged write is on disk before the reply, so a SIGKILL and restart must lose none.
    const persistence = options.loseWritesOnRestart
      ? ['--appendonly', 'no']
      : ['--appendonly', 'yes', '--appendfsync', 'always'];
    const server = await startRedisServer({ args: persistence });
    cleanups.push(() => server.stop());
    servers.push(server);
    target = { mode: 'standalone', host: server.host, port: server.port };
  }
  const admins = servers.map((server) => {
    const admin = new Redis({ host: server.host, port: server.port, retryStrategy: () => 50 });
    admin.on('error', () => undefined);
    cleanups.push(() => {
      admin.disconnect();
    });
    return admin;
  });
  return {
    target,
    serverFaults: redisServerFaults({ servers, admins, cluster: options.cluster, leaseMs: options.leaseMs }),
  };
}

function startWorker(
  name: string,
  target: SoakTarget,
  subscriptionIds: readonly string[],
  options: SoakOptions,
): RunningWorker {
  const child = fork(new URL('./soak-worker.js', import.meta.url), [], {
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const worker: RunningWorker = {
    name,
    process: child,
    events: [],
    grants: [],
    lastAcceptedAt: -1n,
    done: Promise.resolve(undefined),
  };
  const openSaves = new Set<string>();
  worker.done = new Promise((resolve) => {
    let leaseErrors: number | undefined;
    child.on('message', (message: SoakWorkerMessage) => {
      if (message.type === 'events') {
        worker.events.push(...message.events);
        worker.grants.push(...message.grants);
        for (const { time, event } of message.events) {
          if (event.type === 'invoke') {
            openSaves[event.operation.kind === 'save' ? 'add' : 'delete'](event.process);
          } else if (openSaves.delete(event.process) && event.type === 'ok') {
            worker.lastAcceptedAt = time;
          }
        }
      } else {
        leaseErrors = message.leaseErrors;
      }
    });
    // A worker that never reports back within the grace period is killed; its open calls count as unknown.
    let timer: ReturnType<typeof setTimeout> | undefined;
    child.once('disconnect', () => {
      timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    });
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(leaseErrors);
    });
  });
  const start: SoakCommand = {
    type: 'start',
    config: {
      name,
      target,
      subscriptionIds,
      leaseMs: options.leaseMs,
      maxWrites: Math.ceil(options.maxOperations / options.workers / 2),
    },
  };
  child.send(start);
  return worker;
}

/** A connected worker whose last accepted save is the most recent (ties broken at random): it holds, or just held, a lease. */
function latestWriter(workers: readonly RunningWorker[]): RunningWorker | undefined {
  const candidates = workers.filter(({ process }) => process.connected);
  const latest = candidates.reduce((max, { lastAcceptedAt }) => (lastAcceptedAt > max ? lastAcceptedAt : max), -1n);
  const tied = candidates.filter(({ lastAcceptedAt }) => lastAcceptedAt === latest);
  return tied[Math.floor(Math.random() * tied.length)];
}

/** Tokens granted for one subscription to more than one worker: two holders the fence cannot tell apart. */
function duplicatedTokens(workers: readonly RunningWorker[]): DuplicatedToken[] {
  const holders = new Map<string, { subscriptionId: string; token: bigint; workers: Set<string> }>();
  for (const { name, grants } of workers) {
    for (const { subscriptionId, token } of grants) {
      const key = `${subscriptionId}\u0000${token}`;
      const entry = holders.get(key) ?? { subscriptionId, token, workers: new Set<string>() };
      entry.workers.add(name);
      holders.set(key, entry);
    }
  }
  return [...holders.values()]
    .filter((entry) => entry.workers.size > 1)
    .map(({ subscriptionId, token, workers: names }) => ({ subscriptionId, token, workers: [...names] }));
}

/** How many failovers the Sentinels made in all: the master's config epoch, which each failover raises by one. */
async function failoversMadeBy(topology: RedisSentinelTopology): Promise<number> {
  const [sentinel] = topology.sentinels;
  if (sentinel === undefined) {
    return 0;
  }
  return withAdminConnection(sentinel, async (admin) => {
    const fields = (await admin.call('SENTINEL', 'MASTER', topology.masterName)) as string[];
    return Number(fields[fields.indexOf('config-epoch') + 1] ?? 0);
  });
}

let options: SoakOptions;
try {
  options = parseSoakOptions(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(2);
}
try {
  process.exitCode = options.partitions ? await partitionChurnSoak(options.seconds) : await soak(options);
} catch (error) {
  // The servers under test misbehaved in a way the soak cannot judge (a topology that never settled, say): no
  // verdict either way, so not the exit code of a found anomaly.
  console.error(
    `soak: could not finish, no verdict: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  // Exit now: the servers and workers the failed run left behind would keep the process alive.
  process.exit(3);
}
