import {
  CheckpointWriteCondition,
  type CheckpointStorage,
  type CompetingConsumerStrategy,
} from '../../runtime/index.js';
import { formatSoakCheckpoint, parseSoakCheckpoint } from './soak-checkpoint.js';
import type { StallableLeaseClock } from './stallable-lease-clock.js';

/** What one checkpointing loop runs on; the soak's worker processes and the in-process lease test share it. */
export interface CheckpointLoopContext {
  /** The subscriber id this node registered with the strategy. */
  readonly subscriberId: string;
  readonly strategy: CompetingConsumerStrategy;
  /** The storage of this loop alone, usually a `RecordingCheckpointStorage` with its own process name. */
  readonly storage: CheckpointStorage;
  readonly clock: StallableLeaseClock;
  /** Asked before every step; true ends the loop. */
  readonly shouldStop: () => boolean;
  /** Told about every write the loop is about to send, for a write budget. */
  readonly onWrite: () => void;
  /** A number in [0, 1); seeded in tests so a run can be replayed. */
  readonly random: () => number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Holds the lease of `subscriptionId` when it can and checkpoints one position after another as `"<offset>@<token>"`.
 * On each new token, and after any failed call, it first reads the stored position and fences it with the token; every
 * later write carries the token the node held when it began handling the event, the stalest token a real worker could
 * still send after a pause (doc/testing.md#the-soak-and-the-linearizability-checker).
 */
export async function runCheckpointLoop(context: CheckpointLoopContext, subscriptionId: string): Promise<void> {
  const { subscriberId, strategy, storage, clock } = context;
  let heldToken: bigint | undefined;
  let offset = 0;
  while (!context.shouldStop()) {
    await clock.untilRunning();
    const token = strategy.hasLock(subscriptionId, subscriberId) ? strategy.fencingToken(subscriptionId) : undefined;
    if (token === undefined) {
      heldToken = undefined;
      await sleep(5);
      continue;
    }
    try {
      if (token !== heldToken) {
        offset = parseSoakCheckpoint(await storage.read(subscriptionId))?.offset ?? 0;
        context.onWrite();
        await storage.save(
          subscriptionId,
          formatSoakCheckpoint(offset, token),
          CheckpointWriteCondition.notOlderThan(token),
        );
        heldToken = token;
        continue;
      }
      // Handling an event: a stall or SIGSTOP landing here sends the next write after the lease may have moved on.
      await sleep(1 + Math.floor(context.random() * 4));
      await clock.untilRunning();
      offset += 1;
      context.onWrite();
      await storage.save(
        subscriptionId,
        formatSoakCheckpoint(offset, heldToken),
        CheckpointWriteCondition.notOlderThan(heldToken),
      );
    } catch {
      // A refusal means the lease moved on; any other failure leaves the write's outcome unknown. Either way the
      // node starts over from the stored position, re-fenced with its token, as DurableSubscription does: while the
      // store is down it only reads, so an outage leaves one unknown write per loop, not one per retry.
      heldToken = undefined;
      await sleep(10);
    }
  }
}
