import { expect } from 'vitest';
import { DurableSubscription, type CheckpointStorage, type CompetingConsumerStrategy } from '../../../runtime/index.js';
import { eventually, EventLog } from '../../support/leases/event-log.js';
import { SubscriptionErrors } from '../../support/leases/subscription-errors.js';
import { jsonRows, runCli } from './operator-cli.js';

/** A backend for {@link runRepairOnStuckNodes}: real strategies and storages, and the CLI arguments naming them. */
export interface StuckNodesWorld {
  readonly leaseTimeMs: number;
  /** A lease strategy of its own for one node (its own client, as a separate process would have). */
  strategy(): CompetingConsumerStrategy;
  storage(): CheckpointStorage;
  /** Raises the token floor before the run, so that the stored version is far above 0 from the first grant. */
  raiseTokenFloor(subscriptionId: string, version: bigint): Promise<void>;
  /** Loses the lease and its token counter, as an eviction or a lease store restarted without persistence would. */
  loseLeaseAndCounter(subscriptionId: string): Promise<void>;
  /** Where the CLI finds the store: `--redis <url> …` or `--postgres <url> …`. */
  readonly cliStore: readonly string[];
}

/** What {@link runRepairOnStuckNodes} measured. */
export interface RepairReport {
  /** From the end of `repair --yes` to the first event handled after it. */
  readonly resumedAfterMs: number;
  readonly storedVersion: bigint;
}

const subscriptionId = 'orders';
const firstToken = 40n;

/**
 * Nodes that cannot heal a lost token counter by themselves, as nodes of a release before the token floor are: their
 * strategy has no `raiseFencingTokenAbove`. Everything else is the real strategy.
 */
function withoutTokenFloor(strategy: CompetingConsumerStrategy): CompetingConsumerStrategy {
  return {
    ...(strategy.leaseTimeMs === undefined ? {} : { leaseTimeMs: strategy.leaseTimeMs }),
    register: (id, subscriber) => strategy.register(id, subscriber),
    unregister: (id, subscriber) => strategy.unregister(id, subscriber),
    release: (id, subscriber) => strategy.release(id, subscriber),
    hasLock: (id, subscriber) => strategy.hasLock(id, subscriber),
    fencingToken: (id) => strategy.fencingToken(id),
    onGranted: (listener) => strategy.onGranted(listener),
    onProhibited: (listener) => strategy.onProhibited(listener),
    shutdown: () => strategy.shutdown(),
  };
}

/**
 * Issue 15: two live `DurableSubscription` nodes deliver with tokens from 41 up; the lease and its token counter are
 * lost, so every grant mints a token far below the stored version and is refused at acquire, and nothing is delivered
 * for two lease times (the nodes cannot raise the floor themselves, so they would climb one token a hand-over).
 * `inspect` flags the subscription stuck; `repair --raise-token --yes` raises the counter through the strategy's
 * own method; delivery resumes within two lease times, from the event after the stored checkpoint: nothing from
 * before it is handled again.
 */
export async function runRepairOnStuckNodes(world: StuckNodesWorld): Promise<RepairReport> {
  const log = new EventLog();
  log.append(10);
  const handled: { readonly event: number; readonly at: number }[] = [];
  const errors = new SubscriptionErrors();
  const { refusals } = errors;
  await world.raiseTokenFloor(subscriptionId, firstToken);
  const nodes = ['node-a', 'node-b'].map((subscriberId) => {
    const strategy = world.strategy();
    const subscription = new DurableSubscription({
      storage: world.storage(),
      strategy: withoutTokenFloor(strategy),
      subscriberId,
      takeoverGraceMs: 200,
      holdBackPollMs: 10,
      retryDelayMs: 50,
      onError: errors.onError,
    });
    return { strategy, subscription };
  });
  const observer = world.storage();
  const stored = async (): Promise<number> => Number((await observer.read(subscriptionId)) ?? '-1');
  const inspect = async (): Promise<readonly string[]> => {
    const run = await runCli(['inspect', ...world.cliStore, '--json', subscriptionId]);
    expect(run.stderr).toBe('');
    return jsonRows(run)[0]?.flags ?? [];
  };
  try {
    for (const { subscription } of nodes) {
      subscription.subscribe(
        subscriptionId,
        log.source,
        (event: number) => {
          handled.push({ event, at: performance.now() });
        },
        { startPosition: '-1' },
      );
    }
    await eventually('the first events are checkpointed', async () => (await stored()) === log.length - 1);
    const storedVersion = (await observer.writeVersion(subscriptionId)) ?? -1n;
    expect(storedVersion).toBeGreaterThan(firstToken);
    expect(await inspect()).toEqual([]);

    await world.loseLeaseAndCounter(subscriptionId);
    const refusalsBefore = refusals.length;
    await eventually('a grant from the lost counter is refused', () => refusals.length > refusalsBefore);
    // The node that held the lease when its key was deleted keeps its token until its next refresh finds the key gone;
    // that token is the stored version, so an event appended before then is delivered and checkpointed (once in a
    // fresh-clone run). A lease time later no node holds a token the store accepts.
    await new Promise((resolve) => setTimeout(resolve, world.leaseTimeMs));
    log.append(5);
    const handledWhileStuck = handled.length;
    await new Promise((resolve) => setTimeout(resolve, 2 * world.leaseTimeMs));
    // Stuck indeed: two lease times with events waiting and none delivered.
    expect(handled.length).toBe(handledWhileStuck);
    expect(await inspect()).toContain('stuck');
    const checkpointAtRepair = await stored();

    const repair = await runCli(['repair', subscriptionId, '--raise-token', '--yes', ...world.cliStore]);
    expect(repair.stderr).toBe('');
    expect(repair.status).toBe(0);
    expect(repair.stdout).toMatch(/^raised the token counter of "orders" to \d+: the next grant mints \d+, fences/u);
    const repairedAt = performance.now();
    await eventually('every event is checkpointed', async () => (await stored()) === log.length - 1);

    const afterRepair = handled.filter(({ at }) => at >= repairedAt);
    expect(afterRepair[0]?.event).toBe(checkpointAtRepair + 1);
    expect(afterRepair.filter(({ event }) => event <= checkpointAtRepair)).toEqual([]);
    const resumedAfterMs = (afterRepair[0]?.at ?? Number.POSITIVE_INFINITY) - repairedAt;
    expect(resumedAfterMs).toBeLessThan(2 * world.leaseTimeMs);
    expect(await inspect()).toEqual([]);
    expect(errors.others).toEqual([]);
    return { resumedAfterMs, storedVersion: (await observer.writeVersion(subscriptionId)) ?? -1n };
  } finally {
    await Promise.all(nodes.map(({ subscription }) => subscription.shutdown()));
    await Promise.all(nodes.map(({ strategy }) => strategy.shutdown()));
  }
}
