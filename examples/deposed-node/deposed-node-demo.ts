import {
  CheckpointWriteConditionNotFulfilledError,
  FencedCheckpointWriter,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  NoLeaseHeldError,
  type Checkpoint,
} from '../../runtime/index.js';

/** What the demo saw; it throws instead of returning when a deposed node's write is accepted. */
export interface DeposedNodeOutcome {
  readonly tokenOfA: bigint;
  readonly tokenOfB: bigint;
  /** A's write of 150 before it noticed: sent with its old token, refused by the storage. */
  readonly refusedByTheStorage: CheckpointWriteConditionNotFulfilledError;
  /** A's write of 150 after it noticed: no token, so its writer sent nothing. */
  readonly refusedByTheWriter: NoLeaseHeldError;
  readonly checkpoint: Checkpoint | undefined;
  readonly version: bigint | undefined;
}

const subscriptionId = 'orders';

/**
 * Issue 32's scenario, as the README writes the writer (`fencingToken: (id) => lease.fencingToken(id)`), in one
 * process: node A holds `orders` and writes 100; A stalls longer than its lease and B takes over and writes 300; A,
 * still believing it holds the lease, writes 150 and the storage refuses it; A notices and releases, its handler's
 * write of 150 is not even sent. The checkpoint stays at B's 300.
 */
export async function runDeposedNodeDemo(say: (line: string) => void): Promise<DeposedNodeOutcome> {
  // The lease table's clock decides when a lease expires. Moving it on by a lease time is what a node that stalls
  // that long (a GC pause, a frozen VM) lives through, without waiting 20 s.
  let stalledMs = 0;
  const table = new InMemoryLeaseTable({ now: () => performance.now() + stalledMs });
  const storage = new InMemoryCheckpointStorage();
  const nodeA = new InMemoryLeaseStrategy({ table });
  const nodeB = new InMemoryLeaseStrategy({ table });
  const writerOf = (lease: InMemoryLeaseStrategy): FencedCheckpointWriter =>
    new FencedCheckpointWriter(storage, { fencingToken: (id) => lease.fencingToken(id) });
  const writerOfA = writerOf(nodeA);
  try {
    await nodeA.register(subscriptionId, 'node-a');
    const tokenOfA = heldToken(nodeA, 'A');
    await writerOfA.save(subscriptionId, '100');
    say(`1. node A holds "${subscriptionId}" with token ${tokenOfA} and writes 100`);

    stalledMs = nodeA.leaseTimeMs + 1;
    await nodeB.register(subscriptionId, 'node-b');
    const tokenOfB = heldToken(nodeB, 'B');
    await writerOf(nodeB).save(subscriptionId, '300');
    say(`2. node A stalls past its lease; node B is granted token ${tokenOfB} and writes 300`);

    const believes = nodeA.hasLock(subscriptionId, 'node-a');
    const refusedByTheStorage = await refusal(writerOfA, CheckpointWriteConditionNotFulfilledError);
    say(
      `3. node A, still believing it holds the lease (hasLock ${believes}), writes 150 with token ${tokenOfA}: REFUSED`,
    );
    say(`   by the storage: ${refusedByTheStorage.message}`);

    await nodeA.release(subscriptionId, 'node-a');
    const token = nodeA.fencingToken(subscriptionId);
    const refusedByTheWriter = await refusal(writerOfA, NoLeaseHeldError);
    say(`4. node A notices and releases (fencingToken ${String(token)}); its handler's last write of 150: NOT SENT`);
    say(`   by its writer: ${refusedByTheWriter.message}`);

    const checkpoint = await storage.read(subscriptionId);
    const version = await storage.writeVersion(subscriptionId);
    say(`stored: checkpoint ${String(checkpoint)}, version ${String(version)}, as node B left them`);
    return { tokenOfA, tokenOfB, refusedByTheStorage, refusedByTheWriter, checkpoint, version };
  } finally {
    await nodeA.shutdown();
    await nodeB.shutdown();
  }
}

function heldToken(node: InMemoryLeaseStrategy, name: string): bigint {
  const token = node.fencingToken(subscriptionId);
  if (token === undefined) {
    throw new Error(`node ${name} was not granted the lease of "${subscriptionId}".`);
  }
  return token;
}

/** A's write of 150, which must fail with `expected`; anything else ends the demo. */
async function refusal<T extends Error>(
  writer: FencedCheckpointWriter,
  expected: new (...args: never[]) => T,
): Promise<T> {
  const outcome: unknown = await writer.save(subscriptionId, '150').then(
    () => undefined,
    (error: unknown) => error,
  );
  if (outcome instanceof expected) {
    return outcome;
  }
  throw new Error(
    outcome === undefined
      ? "node A's write of 150 was accepted: the checkpoint moved backward."
      : `node A's write of 150 failed with ${outcome instanceof Error ? outcome.name : typeof outcome}, not ${expected.name}.`,
  );
}
