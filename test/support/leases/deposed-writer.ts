import { setImmediate } from 'node:timers/promises';
import { expect } from 'vitest';
import {
  CheckpointWriteConditionNotFulfilledError,
  FencedCheckpointWriter,
  NoLeaseHeldError,
  type CheckpointStorage,
  type FencingTokenSource,
  type LeaseClock,
  type LeaseKeepingStrategy,
} from '../../../runtime/index.js';
import { ManualLeaseClock } from './manual-lease-clock.js';

/** One backend's storage and leases, for {@link runDeposedWriter}. */
export interface DeposedWriterWorld {
  readonly leaseTimeMs: number;
  storage(): CheckpointStorage | Promise<CheckpointStorage>;
  /** A node: a strategy over the shared lease store, on `clock` (the system's when left out). */
  strategy(clock?: LeaseClock): LeaseKeepingStrategy | Promise<LeaseKeepingStrategy>;
  /** Resolves once every lease granted so far has expired by the lease store's own clock. */
  expireLeases(): Promise<void>;
}

/**
 * How node A comes to know it lost its lease, and the token source its writer asks. Every way ends with the source
 * answering `undefined`.
 */
export const noticeWays = [
  'release',
  'shutdown',
  'expiry noticed by hasLock',
  'async token source, after release',
] as const;

/** One of {@link noticeWays}. */
export type NoticeWay = (typeof noticeWays)[number];

/**
 * Issue 32's scenario: A holds `subscriptionId` and writes 100; its lease expires while its own clock stands still, so
 * it still believes it holds it; B is granted a newer token and writes 300. A writes 150 and is refused by the storage;
 * then A notices (`way`), its token source answers `undefined`, and its next write of 150 is refused by the writer
 * with `NoLeaseHeldError`, sending nothing. After each refusal the stored checkpoint is 300 and its version B's token.
 */
export async function runDeposedWriter(
  world: DeposedWriterWorld,
  way: NoticeWay,
  subscriptionId: string,
): Promise<void> {
  const storage = await world.storage();
  const clockOfA = new ManualLeaseClock();
  const nodeA = await world.strategy(clockOfA);
  const nodeB = await world.strategy();
  try {
    expect(await nodeA.register(subscriptionId, 'node-a')).toBe(true);
    const writerA = new FencedCheckpointWriter(storage, { fencingToken: tokenSourceOf(nodeA, way) });
    await writerA.save(subscriptionId, '100');
    const tokenOfA = nodeA.fencingToken(subscriptionId);

    await world.expireLeases();
    expect(await nodeB.register(subscriptionId, 'node-b')).toBe(true);
    const tokenOfB = nodeB.fencingToken(subscriptionId);
    expect(tokenOfB !== undefined && tokenOfA !== undefined && tokenOfB > tokenOfA).toBe(true);
    await new FencedCheckpointWriter(storage, { fencingToken: (id) => nodeB.fencingToken(id) }).save(
      subscriptionId,
      '300',
    );
    const stored = async () => ({
      checkpoint: await storage.read(subscriptionId),
      version: await storage.writeVersion(subscriptionId),
    });
    const newHolders = { checkpoint: '300', version: tokenOfB };

    expect(nodeA.hasLock(subscriptionId, 'node-a')).toBe(true);
    const unaware: unknown = await writerA.save(subscriptionId, '150').catch((error: unknown) => error);
    expect(unaware).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    expect(unaware).not.toBeInstanceOf(NoLeaseHeldError);
    expect(unaware).toMatchObject({ storedVersion: tokenOfB });
    expect(await stored()).toEqual(newHolders);

    await notice(nodeA, clockOfA, way, subscriptionId, world.leaseTimeMs);
    expect(nodeA.hasLock(subscriptionId, 'node-a')).toBe(false);
    const aware: unknown = await writerA.save(subscriptionId, '150').catch((error: unknown) => error);
    expect(aware).toBeInstanceOf(NoLeaseHeldError);
    expect(aware).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    expect(aware).toMatchObject({ subscriptionId, storedVersion: undefined });
    expect(await stored()).toEqual(newHolders);
  } finally {
    await nodeA.shutdown();
    await nodeB.shutdown();
  }
}

/** The README's source, `lease.fencingToken(id)`; a source that asks `hasLock` first; or an async one. */
function tokenSourceOf(node: LeaseKeepingStrategy, way: NoticeWay): FencingTokenSource {
  switch (way) {
    case 'expiry noticed by hasLock':
      return (id) => (node.hasLock(id, 'node-a') ? node.fencingToken(id) : undefined);
    case 'async token source, after release':
      return async (id) => {
        await setImmediate();
        return node.fencingToken(id);
      };
    default:
      return (id) => node.fencingToken(id);
  }
}

async function notice(
  node: LeaseKeepingStrategy,
  clock: ManualLeaseClock,
  way: NoticeWay,
  subscriptionId: string,
  leaseTimeMs: number,
): Promise<void> {
  switch (way) {
    case 'shutdown':
      await node.shutdown();
      expect(node.fencingToken(subscriptionId)).toBeUndefined();
      return;
    case 'expiry noticed by hasLock':
      // A's clock passes the lease time: hasLock answers false, whether or not the refresh it sends has come back.
      await clock.advance(leaseTimeMs);
      return;
    default:
      await node.release(subscriptionId, 'node-a');
      expect(node.fencingToken(subscriptionId)).toBeUndefined();
  }
}
