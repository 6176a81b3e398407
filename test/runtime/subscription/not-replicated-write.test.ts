import { describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  CheckpointWriteNotReplicatedError,
  DurableSubscription,
  FencedCheckpointWriter,
  FencingTokenReusedError,
  formatWriteCondition,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  StartPositionAlreadyPinnedError,
  type Checkpoint,
} from '../../../runtime/index.js';
import { eventually, EventLog } from '../../support/leases/event-log.js';

// A write the replicas did not acknowledge (CheckpointWriteNotReplicatedError) is a "maybe": the master has it, a
// failover may lose it. It is not a refusal: nobody gives the lease up or raises the token floor for it, the start
// position is not treated as pinned by someone else, and delivery goes on under the same token.

/**
 * An in-memory storage that behaves like Redis whose replica stopped acknowledging: the chosen conditional writes (by
 * their 1-based number among conditional writes and advances) are applied, then rejected as not replicated.
 */
class UnacknowledgedWritesStorage extends InMemoryCheckpointStorage {
  conditionalWrites = 0;
  resolvedRaces = 0;

  constructor(private readonly unacknowledged: ReadonlySet<number>) {
    super();
  }

  override async save(id: string, checkpoint: Checkpoint, condition: CheckpointWriteCondition): Promise<Checkpoint> {
    const saved = await super.save(id, checkpoint, condition);
    if (condition.kind !== 'any') {
      this.#maybeReject(id, formatWriteCondition(condition));
    }
    return saved;
  }

  override async advanceWriteVersion(id: string, version: bigint): Promise<void> {
    await super.advanceWriteVersion(id, version);
    this.#maybeReject(id, `advanceWriteVersion(${version})`);
  }

  override async resolveFirstCheckpointRace(id: string, candidate: Checkpoint): Promise<Checkpoint | undefined> {
    this.resolvedRaces += 1;
    return super.resolveFirstCheckpointRace(id, candidate);
  }

  #maybeReject(subscriptionId: string, operation: string): void {
    this.conditionalWrites += 1;
    if (this.unacknowledged.has(this.conditionalWrites)) {
      throw new CheckpointWriteNotReplicatedError({
        subscriptionId,
        operation,
        replicas: 1,
        acknowledged: 0,
        timeoutMs: 500,
      });
    }
  }
}

/** An in-memory lease strategy that counts the calls a refusal would make. */
class CountingLeaseStrategy extends InMemoryLeaseStrategy {
  raises = 0;
  releases = 0;

  override async raiseFencingTokenAbove(id: string, version: bigint): Promise<void> {
    this.raises += 1;
    await super.raiseFencingTokenAbove(id, version);
  }

  override async release(id: string, subscriberId: string): Promise<void> {
    this.releases += 1;
    await super.release(id, subscriberId);
  }
}

async function runUntilCheckpointed(storage: UnacknowledgedWritesStorage, events: number) {
  const strategy = new CountingLeaseStrategy({ leaseTimeMs: 1_000 });
  const errors: unknown[] = [];
  const handled: number[] = [];
  const tokens: (bigint | undefined)[] = [];
  const log = new EventLog();
  log.append(events);
  const subscription = new DurableSubscription({
    storage,
    strategy,
    subscriberId: 'node-a',
    holdBackPollMs: 5,
    retryDelayMs: 30,
    onError: (error) => errors.push(error),
  });
  subscription.subscribe(
    'orders',
    log.source,
    (event: number) => {
      handled.push(event);
      tokens.push(strategy.fencingToken('orders'));
    },
    { startPosition: '-1' },
  );
  try {
    await eventually('every event is checkpointed', async () => (await storage.read('orders')) === String(events - 1));
  } finally {
    await subscription.shutdown();
    await strategy.shutdown();
  }
  return { strategy, errors, handled, tokens };
}

describe('DurableSubscription and a checkpoint write the replicas did not acknowledge', () => {
  it('reports it, keeps the lease and its token, and delivers on from the stored checkpoint after retryDelayMs', async () => {
    // Conditional writes: 1 pins the start, 2 is the fence on acquire, 3.. checkpoint events 0, 1, ...; 5 is event 2's.
    const storage = new UnacknowledgedWritesStorage(new Set([5]));
    const { strategy, errors, handled, tokens } = await runUntilCheckpointed(storage, 6);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(CheckpointWriteNotReplicatedError);
    expect(errors[0]).not.toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    // Not a refusal: no floor raised, no lease given up (the only release is shutdown's).
    expect(strategy.raises).toBe(0);
    expect(strategy.releases).toBe(0);
    expect(new Set(tokens)).toEqual(new Set([0n]));
    // The run ended after event 2's write; the next run started from what the store held (event 2 was applied), so
    // nothing was lost and nothing was handled twice here. Against a store that lost it, event 2 comes again.
    expect(handled).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await storage.writeVersion('orders')).toBe(0n);
  });

  it('after a fence on acquire that was not acknowledged, fences again under the same token: no FencingTokenReusedError', async () => {
    const storage = new UnacknowledgedWritesStorage(new Set([2]));
    const { strategy, errors, handled } = await runUntilCheckpointed(storage, 3);
    expect(errors.map((error) => (error as Error).name)).toEqual(['CheckpointWriteNotReplicatedError']);
    expect(errors.some((error) => error instanceof FencingTokenReusedError)).toBe(false);
    expect([strategy.raises, strategy.releases]).toEqual([0, 0]);
    expect(handled).toEqual([0, 1, 2]);
  });
});

describe('FencedCheckpointWriter and a write the replicas did not acknowledge', () => {
  it('passes it through from save, unchanged', async () => {
    const storage = new UnacknowledgedWritesStorage(new Set([1]));
    const writer = new FencedCheckpointWriter(storage, { fencingToken: () => 4n });
    await expect(writer.save('orders', 'cp')).rejects.toBeInstanceOf(CheckpointWriteNotReplicatedError);
    expect(await storage.read('orders')).toBe('cp');
  });

  it('saveStartPosition rejects with it, without asking the storage to resolve a race nobody lost', async () => {
    const storage = new UnacknowledgedWritesStorage(new Set([1]));
    const writer = new FencedCheckpointWriter(storage, { fencingToken: () => 0n });
    const error = await writer.saveStartPosition('orders', 'start').catch((rejected: unknown) => rejected);
    expect(error).toBeInstanceOf(CheckpointWriteNotReplicatedError);
    expect(error).not.toBeInstanceOf(StartPositionAlreadyPinnedError);
    expect(storage.resolvedRaces).toBe(0);
  });
});
