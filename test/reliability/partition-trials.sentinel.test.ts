import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, RedisCheckpointStorage, redisLeaseKeys } from '../../runtime/index.js';
import { eventually } from '../support/leases/event-log.js';
import {
  FailoverTrialClients,
  prefixOf,
  variants,
  type OldHolders,
  type TrialOutcome,
  type Variant,
} from '../support/redis/failover-trial-clients.js';
import {
  startRedisSentinel,
  withAdminConnection,
  type PartitionSide,
  type RedisSentinelTopology,
  type SentinelDataServer,
} from '../support/redis/index.js';

// Issue 33's Sentinel trials: failovers in which the old master lives on, cut off in a minority, and one in which a
// replica attaches to a master whose clients counted none a moment before. Every server and Sentinel sits behind a door
// it announces, so a partition cuts the master (and a replica) and one Sentinel off from the rest, both ways, while
// every process runs; the two Sentinels of the majority promote a replica on their side. Old holders on the minority
// side are granted (or refused) and write (or are refused) there; a new holder on the majority side is granted on the
// promoted master. With the default waitForReplicas, no token goes to two holders and no accepted write is lost; opted
// out, both happen. Each trial also measures how long the subscription stays unowned: from the cut until the new
// holder is granted and its first fenced write is accepted. The three kinds of trial run one after another, each on a
// topology of its own, started side by side.

const trialsOfEachKind = 6;
// Long enough that the old holder still answers hasLock when the new one is granted, and that the default's old holder,
// refused during the cut, does not try again (a third of the lease later) before the trial has checked the new master.
const leaseTimeMs = 30_000;

/** One trial: what each variant's old holder did, and how long the subscription stayed unowned under the default. */
interface Trial {
  readonly outcomes: Record<Variant, TrialOutcome>;
  readonly unownedMs: number;
}

let twoReplicas: RedisSentinelTopology | undefined;
let oneReplica: RedisSentinelTopology | undefined;
let direct: RedisSentinelTopology | undefined;

beforeAll(async () => {
  const starting = await Promise.allSettled([
    startRedisSentinel({ replicas: 2, partitionable: true }),
    startRedisSentinel({ replicas: 1, partitionable: true }),
    startRedisSentinel(),
  ]);
  [twoReplicas, oneReplica, direct] = starting.map((outcome) =>
    outcome.status === 'fulfilled' ? outcome.value : undefined,
  );
  const failed = starting.find((outcome) => outcome.status === 'rejected');
  if (failed !== undefined) {
    throw failed.reason;
  }
}, 60_000);

afterAll(async () => {
  await Promise.all([twoReplicas, oneReplica, direct].map((topology) => topology?.stop() ?? Promise.resolve()));
});

function started(topology: RedisSentinelTopology | undefined): RedisSentinelTopology {
  if (topology === undefined) {
    throw new Error('The Sentinel topologies of this file did not start; see the beforeAll error.');
  }
  return topology;
}

/**
 * Clients on `side` of `topology`'s partitions, each finding the master through the Sentinels of its side (all of
 * them, `'both'`), with the settings doc/redis.md recommends for Sentinel; named after their side, so the doors know it.
 */
function clientsOn(topology: RedisSentinelTopology, side: PartitionSide | 'both'): FailoverTrialClients<Redis> {
  const { sentinels, name } = side === 'both' ? topology.sentinelOptions : topology.sentinelOptionsOn(side);
  let made = 0;
  const connect = (): Redis => {
    made += 1;
    return new Redis({
      sentinels: [...sentinels],
      name,
      connectionName: `${side}-${made}`,
      commandTimeout: 2_000,
      connectTimeout: 1_000,
      sentinelCommandTimeout: 500,
      autoResendUnfulfilledCommands: false,
      retryStrategy: () => 50,
      sentinelRetryStrategy: () => 50,
      // A master the Sentinels made a replica keeps its connections: ask the Sentinels again (doc/redis.md).
      reconnectOnError: (error) => error.message.startsWith('READONLY'),
    });
  };
  return new FailoverTrialClients(connect, leaseTimeMs);
}

/**
 * Writes version 1 of `id` and waits until every replica has it: only what happens during the cut may be lost.
 * Without waitForReplicas and with a WAIT of its own, so that this process reads no replica count of the master: a
 * client that starts after the partition must know no history of it.
 */
async function writeBeforeTheCut(topology: RedisSentinelTopology, id: string): Promise<void> {
  await withAdminConnection(topology.master(), async (admin) => {
    for (const variant of variants) {
      const storage = new RedisCheckpointStorage(admin, {
        keyPrefix: prefixOf(variant),
        versionKeyPrefix: `${prefixOf(variant)}version:`,
        waitForReplicas: false,
      });
      await storage.save(id, 'before@1', CheckpointWriteCondition.notOlderThan(1));
    }
    const replicas = topology.replicas().length;
    expect(await admin.call('WAIT', String(replicas), '5000'), 'every replica has the write before the cut').toBe(
      replicas,
    );
  });
}

/** Each variant's old holder is granted (or refused), and writes (or is refused): what its write reports. */
async function grantAndWrite(oldHolders: OldHolders, id: string): Promise<{ written: Record<Variant, unknown> }> {
  const [granted, written] = await Promise.all([
    Promise.all(variants.map((variant) => oldHolders.strategies[variant].register(id, 'old-holder'))),
    Promise.all(
      variants.map((variant) =>
        oldHolders.storages[variant].save(id, 'during@2', CheckpointWriteCondition.notOlderThan(2)).then(
          () => 'accepted' as const,
          (error: unknown) => error,
        ),
      ),
    ),
  ]);
  // The negative control's precondition: opted out, the grant and the write are reported made.
  expect(granted[1], 'opted out: granted on the old master').toBe(true);
  expect(written[1], 'opted out: written on the old master').toBe('accepted');
  return { written: { default: written[0], 'opted out': written[1] } };
}

/** Each trial's precondition: the grant and the write of the old holders really are missing on `promoted`. */
async function expectMissingOn(promoted: SentinelDataServer, id: string): Promise<void> {
  await withAdminConnection(promoted, async (admin) => {
    for (const variant of variants) {
      expect(await admin.exists(redisLeaseKeys(prefixOf(variant), id).token), `${variant}: token key`).toBe(0);
      expect(await admin.get(`${prefixOf(variant)}${id}`), `${variant}: checkpoint`).toBe('before@1');
    }
  });
}

/**
 * A new holder of each variant takes the lease of `id` on the promoted master, as soon as its client finds it, and
 * makes a first fenced write there: their tokens, and when the default's write was accepted.
 */
async function newHoldersTake(
  newHolders: FailoverTrialClients<Redis>,
  id: string,
): Promise<{ tokens: Record<Variant, bigint | undefined>; writtenAt: number }> {
  const tokens: Record<Variant, bigint | undefined> = { default: undefined, 'opted out': undefined };
  let writtenAt = Number.NaN;
  await Promise.all(
    variants.map(async (variant) => {
      const client = newHolders.client();
      const newHolder = newHolders.strategy(variant);
      await eventually(`${variant}: the new holder takes the lease on the promoted master`, () =>
        newHolder.register(id, 'new-holder'),
      );
      const token = newHolder.fencingToken(id);
      tokens[variant] = token;
      await eventually(`${variant}: the new holder's first fenced write is accepted`, () =>
        newHolders
          .storage(variant, client)
          // A checkpoint of its own: the trial's holds versions written without a lease.
          .save(`${id}-new-holder`, `new@${token}`, CheckpointWriteCondition.notOlderThan(token ?? 0n))
          .then(
            () => true,
            () => false,
          ),
      );
      if (variant === 'default') {
        writtenAt = performance.now();
      }
    }),
  );
  return { tokens, writtenAt };
}

/** What each variant's old holder did: both holders answer hasLock with one token, and an accepted write was lost. */
function outcomesOf(
  oldHolders: OldHolders,
  id: string,
  written: Record<Variant, unknown>,
  newTokens: Record<Variant, bigint | undefined>,
): Record<Variant, TrialOutcome> {
  const outcome = (variant: Variant): TrialOutcome => {
    const oldToken = oldHolders.strategies[variant].fencingToken(id);
    return {
      // The measure: both holders answer hasLock with the same token, so both writes would be accepted.
      duplicatedToken:
        oldHolders.strategies[variant].hasLock(id, 'old-holder') &&
        oldToken !== undefined &&
        oldToken === newTokens[variant],
      acceptedWriteLost: written[variant] === 'accepted',
    };
  };
  return { default: outcome('default'), 'opted out': outcome('opted out') };
}

/** Gives up the old holders' leases of `id` (a refused one may try again later) and closes what the trial made. */
async function endTrial(
  oldHolders: OldHolders,
  id: string,
  made: readonly FailoverTrialClients<Redis>[],
): Promise<void> {
  await Promise.all(variants.map((variant) => oldHolders.strategies[variant].unregister(id, 'old-holder')));
  await Promise.all(made.map((clients) => clients.close()));
}

/** One grant and one conditional write by each old holder, so that it has read the master's replicas before. */
async function warmUp(oldHolders: OldHolders, id: string): Promise<void> {
  for (const variant of variants) {
    const strategy = oldHolders.strategies[variant];
    await eventually(`${variant}: a warm-up grant`, async () => {
      const granted = await strategy.register(id, 'warm-up');
      await strategy.unregister(id, 'warm-up');
      return granted;
    });
    await eventually(`${variant}: a warm-up write`, () =>
      oldHolders.storages[variant].save(id, 'warm-up@0', CheckpointWriteCondition.notOlderThan(0)).then(
        () => true,
        () => false,
      ),
    );
  }
}

/** Reports the trials' outcomes and unowned times, and checks them. */
function checkTrials(label: string, trials: readonly Trial[]): void {
  const count = (variant: Variant, key: keyof TrialOutcome): number =>
    trials.filter(({ outcomes }) => outcomes[variant][key]).length;
  const unowned = trials.map(({ unownedMs }) => Math.round(unownedMs)).sort((a, b) => a - b);
  console.info(
    `${label}: ${trials.length} per variant; default: ${count('default', 'duplicatedToken')} duplicated tokens, ` +
      `${count('default', 'acceptedWriteLost')} accepted writes lost; waitForReplicas false: ` +
      `${count('opted out', 'duplicatedToken')} duplicated tokens, ${count('opted out', 'acceptedWriteLost')} accepted writes lost; ` +
      `unowned from the cut until the new holder wrote: median ${unowned[Math.floor(unowned.length / 2)]} ms ` +
      `(${unowned[0]}–${unowned.at(-1)} ms)`,
  );
  expect(count('default', 'duplicatedToken')).toBe(0);
  expect(count('default', 'acceptedWriteLost')).toBe(0);
  expect(count('opted out', 'duplicatedToken')).toBeGreaterThan(trials.length / 2);
  expect(count('opted out', 'acceptedWriteLost')).toBeGreaterThan(trials.length / 2);
}

describe('Sentinel: the master and one of its two replicas cut off in a minority with one Sentinel', () => {
  it(`${trialsOfEachKind} trials with old holders warmed up before the cut: by default no token goes to two holders and no accepted write is lost; opted out, most trials do both`, async () => {
    const topology = started(twoReplicas);
    const kept = clientsOn(topology, 'minority');
    const oldHolders = kept.oldHolders();
    const trials: Trial[] = [];
    try {
      await warmUp(oldHolders, 'warm-up');
      for (let trial = 0; trial < trialsOfEachKind; trial += 1) {
        const id = `two-replicas-${trial}`;
        const newHolders = clientsOn(topology, 'majority');
        try {
          await writeBeforeTheCut(topology, id);
          const [withMaster] = topology.replicas();
          let written: Record<Variant, unknown> = { default: undefined, 'opted out': undefined };
          const cutAt = performance.now();
          const { promoted } = await topology.partitionMaster({
            withMaster: withMaster === undefined ? [] : [withMaster],
            sentinelsWithMaster: 1,
            onCut: async () => {
              // The replica on the master's side acknowledges; the one on the other side does not.
              ({ written } = await grantAndWrite(oldHolders, id));
            },
          });
          await expectMissingOn(promoted, id);
          const { tokens, writtenAt } = await newHoldersTake(newHolders, id);
          trials.push({ outcomes: outcomesOf(oldHolders, id, written, tokens), unownedMs: writtenAt - cutAt });
        } finally {
          await endTrial(oldHolders, id, [newHolders]);
          await topology.recover();
        }
        // Warmed up on the new master before the next cut.
        await warmUp(oldHolders, `warm-up-${trial}`);
      }
    } finally {
      await kept.close();
    }
    checkTrials('partition trials, two replicas, warmed-up clients', trials);
  }, 300_000);
});

describe('Sentinel: the master alone in a minority with one Sentinel, a client that starts after the partition', () => {
  it(`${trialsOfEachKind} trials: by default the new client is refused on the cut-off master, which lists no replica; opted out, most trials duplicate a token and lose a write`, async () => {
    const topology = started(oneReplica);
    const trials: Trial[] = [];
    for (let trial = 0; trial < trialsOfEachKind; trial += 1) {
      const id = `fresh-client-${trial}`;
      const newHolders = clientsOn(topology, 'majority');
      const restarted = clientsOn(topology, 'minority');
      // Made only now, but before the grant: a process that starts during the partition.
      let oldHolders: OldHolders | undefined;
      try {
        await writeBeforeTheCut(topology, id);
        const old = topology.master();
        const cutAt = performance.now();
        const { promoted } = await topology.partitionMaster({ withMaster: [], sentinelsWithMaster: 1 });
        // The cut replica's link times out on the old master's side: it lists no replica now.
        topology.dropCutReplicas();
        await eventually('the cut-off master lists no replica', async () =>
          /^connected_slaves:0\r?$/mu.test(await withAdminConnection(old, (admin) => admin.info('replication'))),
        );
        await expectMissingOn(promoted, id);
        const starting = restarted.oldHolders();
        oldHolders = starting;
        // The restarted process on the old master's side and the new holders on the other, at once.
        const [{ written }, { tokens, writtenAt }] = await Promise.all([
          grantAndWrite(starting, id),
          newHoldersTake(newHolders, id),
        ]);
        trials.push({ outcomes: outcomesOf(starting, id, written, tokens), unownedMs: writtenAt - cutAt });
      } finally {
        if (oldHolders !== undefined) {
          await endTrial(oldHolders, id, [newHolders, restarted]);
        } else {
          await Promise.all([newHolders.close(), restarted.close()]);
        }
        await topology.recover();
      }
    }
    checkTrials('partition trials, one replica, a client started after the cut', trials);
  }, 300_000);
});

describe('Sentinel: a replica attaches to a master its clients counted none on a moment before', () => {
  it(`${trialsOfEachKind} trials: a grant and a write within the second after the count, its link cut, then it is promoted; by default nothing is lost, opted out most trials lose`, async () => {
    const topology = started(direct);
    const kept = clientsOn(topology, 'both');
    const oldHolders = kept.oldHolders();
    const trials: Trial[] = [];
    const sinceTheCount: number[] = [];
    try {
      for (let trial = 0; trial < trialsOfEachKind; trial += 1) {
        const id = `fresh-replica-${trial}`;
        const newHolders = clientsOn(topology, 'both');
        try {
          // A master promoted a moment ago, with no replica yet: the old holders count none on it.
          await topology.killMaster();
          await warmUp(oldHolders, `count-${trial}`);
          const countedAt = performance.now();
          await topology.rejoinThroughDoor();
          await writeBeforeTheCut(topology, id);
          await topology.cutReplicationLink();
          const grantedAt = performance.now();
          const { written } = await grantAndWrite(oldHolders, id);
          sinceTheCount.push(grantedAt - countedAt);
          const { promoted } = await topology.killMaster();
          await expectMissingOn(promoted, id);
          const { tokens, writtenAt } = await newHoldersTake(newHolders, id);
          trials.push({ outcomes: outcomesOf(oldHolders, id, written, tokens), unownedMs: writtenAt - grantedAt });
        } finally {
          await endTrial(oldHolders, id, [newHolders]);
          await topology.recover({ followSpontaneousFailover: true });
        }
      }
    } finally {
      await kept.close();
    }
    console.info(
      `replica attached after the count: grants ${sinceTheCount.map((ms) => Math.round(ms)).join(', ')} ms after the count of none`,
    );
    // The trial's precondition: the grant came within the second for which a count of none decided before ADR 1105.
    expect(sinceTheCount.filter((ms) => ms < 1_000).length).toBeGreaterThan(trialsOfEachKind / 2);
    checkTrials('replica attached after the count', trials);
  }, 300_000);
});
