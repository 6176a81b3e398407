import { DurableSubscription, type CheckpointStorage, type CompetingConsumerStrategy } from '../../../runtime/index.js';
import { expect } from 'vitest';
import { eventually, EventLog } from './event-log.js';

/** A node of {@link deliveringNode}: its subscription, the log it reads, and what it reported to `onError`. */
export interface DeliveringNode {
  readonly subscription: DurableSubscription;
  readonly log: EventLog;
  readonly errors: unknown[];
}

/**
 * `node-a` delivering `orders` from a fresh {@link EventLog} over `storage` under `strategy` (retryDelayMs 50), with
 * events 0–2 handled and checkpointed when it resolves. Pushes onto `cleanups` the shutdown of the subscription, then
 * of the strategy.
 */
export async function deliveringNode(
  storage: CheckpointStorage,
  strategy: CompetingConsumerStrategy,
  cleanups: (() => Promise<void>)[],
): Promise<DeliveringNode> {
  const errors: unknown[] = [];
  const log = new EventLog();
  const subscription = new DurableSubscription({
    storage,
    strategy,
    subscriberId: 'node-a',
    retryDelayMs: 50,
    onError: (error) => errors.push(error),
  });
  cleanups.push(async () => {
    await subscription.shutdown();
    await strategy.shutdown();
  });
  subscription.subscribe('orders', log.source, () => undefined);
  log.append(3);
  await eventually('events 0-2 are checkpointed', async () => (await storage.read('orders')) === '2');
  return { subscription, log, errors };
}

/**
 * Pauses `node`'s subscription, lets `between` pass, resumes it, and expects it to deliver events 3–5 (checkpointed
 * in `storage`) within a few lease times, with nothing reported.
 */
export async function expectDeliveryAfterPauseResume(
  node: DeliveringNode,
  storage: CheckpointStorage,
  between: () => Promise<unknown>,
): Promise<void> {
  const { subscription, log, errors } = node;
  const paused = subscription.pause('orders');
  await between();
  await subscription.resume('orders');
  await paused;
  expect(subscription.isPaused('orders')).toBe(false);
  log.append(3);
  await eventually(
    'events 3-5 are checkpointed after resume()',
    async () => (await storage.read('orders')) === '5',
    6_000,
  );
  expect(errors).toEqual([]);
  expect(subscription.isRunning('orders')).toBe(true);
}
