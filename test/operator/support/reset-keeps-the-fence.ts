import { expect } from 'vitest';
import {
  CheckpointWriteConditionNotFulfilledError,
  DurableSubscription,
  FencedCheckpointWriter,
  type CheckpointStorage,
  type CompetingConsumerStrategy,
} from '../../../runtime/index.js';
import { eventually, EventLog } from '../../support/leases/event-log.js';
import { SubscriptionErrors } from '../../support/leases/subscription-errors.js';
import { jsonRows, runCli } from './operator-cli.js';

/** A backend for the reset scenarios: real strategies and storages, and the CLI arguments naming them. */
export interface ResetWorld {
  /** A lease strategy of its own for one node (its own client, as a separate process would have). */
  strategy(): CompetingConsumerStrategy;
  storage(): CheckpointStorage;
  /** Raises the token floor before the run, so that the stored version is far above 0 from the first grant. */
  raiseTokenFloor(subscriptionId: string, version: bigint): Promise<void>;
  /** Where the CLI finds the store: `--redis <url> …` or `--postgres <url> …`. */
  readonly cliStore: readonly string[];
}

const firstToken = 40n;
/** Not the beginning of the log: a restart from here is told apart from a restart from event 0. */
const startPosition = '3';

/** One `DurableSubscription` node delivering `subscriptionId` from `log`, with a strategy of its own. */
function startNode(world: ResetWorld, subscriptionId: string, log: EventLog, handled: number[]) {
  const strategy = world.strategy();
  const errors = new SubscriptionErrors();
  const subscription = new DurableSubscription({
    storage: world.storage(),
    strategy,
    subscriberId: 'node',
    takeoverGraceMs: 200,
    holdBackPollMs: 10,
    retryDelayMs: 50,
    onError: errors.onError,
  });
  subscription.subscribe(
    subscriptionId,
    log.source,
    (event: number) => {
      handled.push(event);
    },
    { startPosition },
  );
  return {
    errors,
    stop: async (): Promise<void> => {
      await subscription.shutdown();
      await strategy.shutdown();
    },
  };
}

/** The checkpoint of `subscriptionId` as a number; -1 when none is stored. */
async function storedEvent(storage: CheckpointStorage, subscriptionId: string): Promise<number> {
  return Number((await storage.read(subscriptionId)) ?? '-1');
}

/**
 * Issue 21: `reset` under a live lease could not restart delivery (its holder writes its next checkpoint over the
 * reset), so it is refused and changes nothing.
 */
export async function runResetUnderALiveLease(world: ResetWorld): Promise<void> {
  const subscriptionId = 'live';
  const log = new EventLog();
  log.append(10);
  const observer = world.storage();
  const node = startNode(world, subscriptionId, log, []);
  try {
    await eventually('the events are checkpointed', async () => (await storedEvent(observer, subscriptionId)) === 9);
    const version = await observer.writeVersion(subscriptionId);

    const reset = await runCli(['reset', subscriptionId, '--yes', ...world.cliStore]);
    expect(reset.stdout).toBe('');
    expect(reset.stderr).toMatch(
      /^checkpoint-fencing reset: "live" has a live lease \(holder "node [^"]+", token \d+/u,
    );
    expect(reset.status).toBe(2);
    expect(await observer.read(subscriptionId)).toBe('9');
    expect(await observer.writeVersion(subscriptionId)).toBe(version);
    expect(node.errors.others).toEqual([]);
  } finally {
    await node.stop();
  }
}

/**
 * Issue 21: the consumers of a subscription stop and `reset --yes` runs. Every holder before the reset is fenced
 * out: a late write stamped with any token up to the version stored before the reset is refused. The next holder's
 * first writes (its fence on acquire, its start position pinned with `ifAbsent()`, its checkpoints) are accepted,
 * and it delivers from the subscription's start position again. `inspect` flags nothing but the stopped consumers
 * while the fence waits, and nothing once the next holder delivers.
 */
export async function runResetAfterTheConsumersStopped(world: ResetWorld): Promise<void> {
  const subscriptionId = 'orders';
  const log = new EventLog();
  log.append(10);
  const observer = world.storage();
  const inspect = async () => {
    const run = await runCli(['inspect', ...world.cliStore, '--json', subscriptionId]);
    expect(run.stderr).toBe('');
    return jsonRows(run)[0];
  };
  await world.raiseTokenFloor(subscriptionId, firstToken);
  const first = startNode(world, subscriptionId, log, []);
  try {
    await eventually('the events are checkpointed', async () => (await storedEvent(observer, subscriptionId)) === 9);
  } finally {
    await first.stop();
  }
  expect(first.errors.others).toEqual([]);
  const versionBefore = (await observer.writeVersion(subscriptionId)) ?? -1n;
  expect(versionBefore).toBeGreaterThan(firstToken);

  const reset = await runCli(['reset', subscriptionId, '--yes', ...world.cliStore]);
  expect(reset.stderr).toMatch(/^warning: resetting "orders" deletes its checkpoint "9": delivery restarts/u);
  expect(reset.status).toBe(0);
  const fence = versionBefore + 1n;
  expect(reset.stdout).toMatch(new RegExp(`^reset "orders": deleted its checkpoint and fenced it at version ${fence}`));
  expect(await observer.read(subscriptionId)).toBeUndefined();
  expect(await observer.writeVersion(subscriptionId)).toBe(fence);
  expect(await inspect()).toMatchObject({
    checkpoint: null,
    storedVersion: String(fence),
    nextToken: String(fence + 1n),
    flags: ['expired-lease'],
  });

  // The stopped holder's token, and older ones: a process paused past its lease writes with one of these.
  for (const token of [versionBefore, versionBefore - 1n, firstToken, 0n]) {
    const deposed = new FencedCheckpointWriter(observer, { fencingToken: () => token });
    await expect(deposed.save(subscriptionId, '999'), `token ${token}`).rejects.toBeInstanceOf(
      CheckpointWriteConditionNotFulfilledError,
    );
  }
  expect(await observer.read(subscriptionId)).toBeUndefined();

  log.append(5);
  const handled: number[] = [];
  const next = startNode(world, subscriptionId, log, handled);
  try {
    await eventually('the next holder checkpoints every event', async () => {
      return (await storedEvent(observer, subscriptionId)) === log.length - 1;
    });
    const firstAfterStart = Number(startPosition) + 1;
    expect(handled).toEqual(
      Array.from({ length: log.length - firstAfterStart }, (_, index) => firstAfterStart + index),
    );
    expect(await observer.writeVersion(subscriptionId)).toBe(fence + 1n);
    expect(next.errors.refusals).toEqual([]);
    expect(next.errors.others).toEqual([]);
    expect((await inspect())?.flags).toEqual([]);
  } finally {
    await next.stop();
  }
}
