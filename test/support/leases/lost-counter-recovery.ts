import { expect } from 'vitest';
import { DurableSubscription, type CheckpointStorage, type CompetingConsumerStrategy } from '../../../runtime/index.js';
import { eventually, EventLog } from './event-log.js';
import { SubscriptionErrors } from './subscription-errors.js';

/** The shared backend of a lost-counter run: how to make a node, and how to lose a lease and its token counter. */
export interface LostCounterWorld {
  readonly leaseTimeMs: number;
  strategy(): CompetingConsumerStrategy | Promise<CompetingConsumerStrategy>;
  storage(): CheckpointStorage | Promise<CheckpointStorage>;
  /** Deletes the lease and its token counter, as an eviction or a lease server restarted without persistence would. */
  loseLeaseAndCounter(subscriptionId: string): Promise<void>;
}

/** What {@link runLostCounterRecovery} measured. */
export interface LostCounterReport {
  readonly versionBeforeLoss: bigint;
  readonly healedAfterMs: number;
  readonly grantsAfterLoss: readonly bigint[];
}

const subscriptionId = 'orders';

/**
 * Issue 11, defect 1, with real timers: two nodes deliver and hand over until the stored version is well above 0; then
 * the lease and its token counter are deleted mid-run. A node is granted token 0 from the fresh counter, its fence on
 * acquire is refused, it raises the token floor and gives the lease up, and the next grant is one above the stored
 * version, within two lease times. Asserts that delivery resumes with every event handled and that the stored
 * checkpoint and version never move backward.
 */
export async function runLostCounterRecovery(world: LostCounterWorld): Promise<LostCounterReport> {
  const log = new EventLog();
  log.append(10);
  const handled = new Set<number>();
  const grants: bigint[] = [];
  const errors = new SubscriptionErrors();
  const { refusals } = errors;
  const nodes = await Promise.all(
    ['node-a', 'node-b'].map(async (subscriberId) => {
      const strategy = await world.strategy();
      strategy.onGranted((id) => {
        const token = strategy.fencingToken(id);
        if (token !== undefined) {
          grants.push(token);
        }
      });
      const subscription = new DurableSubscription({
        storage: await world.storage(),
        strategy,
        subscriberId,
        holdBackPollMs: 10,
        retryDelayMs: 50,
        onError: errors.onError,
      });
      return { subscriberId, strategy, subscription };
    }),
  );
  const observer = await world.storage();
  const observed: { readonly checkpoint: number; readonly version: bigint }[] = [];
  const watching = { active: true };
  const watcher = (async () => {
    while (watching.active) {
      const checkpoint = await observer.read(subscriptionId);
      const version = await observer.writeVersion(subscriptionId);
      if (checkpoint !== undefined && version !== undefined) {
        observed.push({ checkpoint: Number(checkpoint), version });
      }
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
  })();
  const stored = async (): Promise<number> => Number((await observer.read(subscriptionId)) ?? '-1');

  try {
    for (const { subscription } of nodes) {
      subscription.subscribe(
        subscriptionId,
        log.source,
        (event: number) => {
          handled.add(event);
        },
        { startPosition: '-1' },
      );
    }
    await eventually('the first events are checkpointed', async () => (await stored()) === log.length - 1);
    for (let handOver = 0; handOver < 3; handOver += 1) {
      const holder = nodes.find(({ strategy, subscriberId }) => strategy.hasLock(subscriptionId, subscriberId));
      const grantsBefore = grants.length;
      await holder?.strategy.release(subscriptionId, holder.subscriberId);
      // Events keep coming, as they would in production.
      log.append(1);
      await eventually('another grant', () => grants.length > grantsBefore);
      const token = grants.at(-1);
      await eventually('the new holder fences', async () => (await observer.writeVersion(subscriptionId)) === token);
    }
    const versionBeforeLoss = (await observer.writeVersion(subscriptionId)) ?? -1n;
    expect(versionBeforeLoss).toBeGreaterThanOrEqual(3n);
    const grantsBeforeLoss = grants.length;

    await world.loseLeaseAndCounter(subscriptionId);
    const lostAt = performance.now();
    await eventually('a grant above the stored version', () =>
      grants.slice(grantsBeforeLoss).some((token) => token > versionBeforeLoss),
    );
    const healedAfterMs = performance.now() - lostAt;
    log.append(10);
    await eventually('every event is checkpointed', async () => (await stored()) === log.length - 1);

    const grantsAfterLoss = grants.slice(grantsBeforeLoss);
    expect(grantsAfterLoss[0]).toBe(0n);
    expect(grantsAfterLoss.find((token) => token > versionBeforeLoss)).toBe(versionBeforeLoss + 1n);
    expect(refusals.at(-1)?.storedVersion).toBe(versionBeforeLoss);
    expect(refusals.at(-1)?.condition).toMatchObject({ kind: 'notOlderThan', version: 0n });
    expect(await observer.writeVersion(subscriptionId)).toBe(versionBeforeLoss + 1n);
    // Two lease times is the promise (the holder learns of the loss at its next refresh, a third of a lease; the
    // refused node gives the lease up; the other takes it within a third); the second on top absorbs timers that
    // fire late on a loaded machine.
    expect(healedAfterMs).toBeLessThan(2 * world.leaseTimeMs + 1_000);
    for (let event = 0; event < log.length; event += 1) {
      expect(handled.has(event), `event ${event} handled`).toBe(true);
    }
    for (let index = 1; index < observed.length; index += 1) {
      const [before, after] = [observed[index - 1], observed[index]];
      expect(after?.checkpoint ?? -1, `checkpoint after ${before?.checkpoint}`).toBeGreaterThanOrEqual(
        before?.checkpoint ?? -1,
      );
      expect((after?.version ?? -1n) >= (before?.version ?? -1n), `version after ${before?.version}`).toBe(true);
    }
    expect(errors.others).toEqual([]);
    return { versionBeforeLoss, healedAfterMs, grantsAfterLoss };
  } finally {
    watching.active = false;
    await watcher;
    await Promise.all(nodes.map(({ subscription }) => subscription.shutdown()));
    await Promise.all(nodes.map(({ strategy }) => strategy.shutdown()));
  }
}
