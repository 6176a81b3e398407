import {
  DurableSubscription,
  InMemoryCheckpointStorage,
  type CheckpointPolicy,
  type EventHandler,
} from '../../../runtime/index.js';
import { CallTimeline } from './call-timeline.js';
import { EventLog } from './event-log.js';
import { HandSetStrategy } from './hand-set-strategy.js';

/** What {@link handSetSubscription} built, for the test to drive and inspect. */
export interface HandSetSubscription {
  readonly strategy: HandSetStrategy;
  /** The storage behind the timeline, to read or to write to as another node would. */
  readonly storage: InMemoryCheckpointStorage;
  readonly timeline: CallTimeline;
  readonly log: EventLog;
  readonly errors: unknown[];
  readonly subscription: DurableSubscription;
}

/**
 * One `DurableSubscription` of `node-a` on `orders` from start position -1, under a {@link HandSetStrategy} the test
 * grants by hand, over an in-memory storage whose writes are recorded on a timeline; quick polls and retries.
 */
export function handSetSubscription(
  handler: EventHandler<number>,
  checkpointEvery?: CheckpointPolicy,
): HandSetSubscription {
  const strategy = new HandSetStrategy();
  const storage = new InMemoryCheckpointStorage();
  const timeline = new CallTimeline();
  const log = new EventLog();
  const errors: unknown[] = [];
  const subscription = new DurableSubscription({
    storage: timeline.storage(storage),
    strategy,
    subscriberId: 'node-a',
    holdBackPollMs: 5,
    retryDelayMs: 20,
    ...(checkpointEvery === undefined ? {} : { checkpointEvery }),
    onError: (error) => errors.push(error),
  });
  subscription.subscribe('orders', log.source, handler, { startPosition: '-1' });
  return { strategy, storage, timeline, log, errors, subscription };
}
