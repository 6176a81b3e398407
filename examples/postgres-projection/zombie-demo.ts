import type pg from 'pg';
import {
  CheckpointWriteConditionNotFulfilledError,
  PostgresCheckpointStorage,
  PostgresLeaseStrategy,
} from '../../runtime/index.js';
import { createOrderStatusTableSql, projectOrderEvent, type OrderEvent } from './project-order-event.js';

/** What the demo ended with, for its printout and its test. */
export interface ZombieDemoOutcome {
  readonly zombieToken: bigint;
  readonly newHolderToken: bigint;
  readonly refusal: CheckpointWriteConditionNotFulfilledError;
  readonly checkpoint: string | undefined;
  readonly rows: readonly {
    readonly order_id: string;
    readonly position: string;
    readonly written_with_token: string;
  }[];
}

const subscriptionId = 'order-status-projection';
const events: readonly OrderEvent[] = Array.from({ length: 6 }, (_, index) => ({
  position: String(index + 1),
  orderId: `order-${index + 1}`,
  status: index % 2 === 0 ? 'paid' : 'shipped',
}));

/**
 * Node A holds the lease and projects events 1–3. While it handles event 4 (its projection row written, its
 * transaction still open) it loses the lease, as a paused process would; node B takes over with a higher token and
 * fences. Then A wakes up and checkpoints event 4 with its old token: refused, so its transaction rolls back and its
 * row for event 4 is gone. B resumes from the stored checkpoint and projects events 4–6.
 */
export async function runZombieDemo(pool: pg.Pool, say: (line: string) => void): Promise<ZombieDemoOutcome> {
  const storage = new PostgresCheckpointStorage(pool);
  const nodeA = new PostgresLeaseStrategy(pool, { leaseTimeMs: 2_000 });
  const nodeB = new PostgresLeaseStrategy(pool, { leaseTimeMs: 2_000 });
  await storage.createTable();
  await nodeA.createTable();
  await pool.query(createOrderStatusTableSql);
  try {
    await nodeA.register(subscriptionId, 'node-a');
    const zombieToken = nodeA.fencingToken(subscriptionId);
    if (zombieToken === undefined) {
      throw new Error('node A did not get the lease; is another process using the demo tables?');
    }
    say(`node A holds the lease with token ${zombieToken}`);
    for (const event of events.slice(0, 3)) {
      await projectOrderEvent(pool, storage, subscriptionId, event, zombieToken);
    }
    say(`node A projected events 1-3; checkpoint ${await storage.read(subscriptionId)}`);

    // Node A handles event 4: its row is written, then it stalls before its checkpoint, transaction open.
    let wake: () => void = () => undefined;
    const stalled = new Promise<void>((resolve) => {
      wake = resolve;
    });
    let reachedStall: () => void = () => undefined;
    const atStall = new Promise<void>((resolve) => {
      reachedStall = resolve;
    });
    const zombieWrite = projectOrderEvent(pool, storage, subscriptionId, events[3] as OrderEvent, zombieToken, () => {
      reachedStall();
      return stalled;
    });
    await atStall;
    say('node A wrote its row for event 4 and stalls before its checkpoint, its transaction open');

    // The lease is lost under the stalled node (here given up; a paused process's lease expires the same way).
    await nodeA.shutdown();
    await nodeB.register(subscriptionId, 'node-b');
    const newHolderToken = nodeB.fencingToken(subscriptionId) ?? -1n;
    await storage.advanceWriteVersion(subscriptionId, newHolderToken);
    say(`node B took the lease over with token ${newHolderToken} and fenced before reading its start position`);

    wake();
    const refusal = await zombieWrite.then(
      () => {
        throw new Error("node A's late checkpoint was accepted: the fence did not hold");
      },
      (error: unknown) => {
        if (!(error instanceof CheckpointWriteConditionNotFulfilledError)) {
          throw error;
        }
        return error;
      },
    );
    say(`node A woke up; its checkpoint write was REFUSED and its transaction rolled back: ${refusal.message}`);

    const start = Number(await storage.read(subscriptionId)) + 1;
    for (const event of events.slice(start - 1)) {
      await projectOrderEvent(pool, storage, subscriptionId, event, newHolderToken);
    }
    say(`node B resumed after checkpoint ${start - 1} and projected events ${start}-${events.length}`);
    const { rows } = await pool.query<ZombieDemoOutcome['rows'][number]>(
      'SELECT order_id, position, written_with_token::text FROM order_status ORDER BY order_id',
    );
    return { zombieToken, newHolderToken, refusal, checkpoint: await storage.read(subscriptionId), rows };
  } finally {
    await Promise.all([nodeA.shutdown(), nodeB.shutdown()]);
  }
}
