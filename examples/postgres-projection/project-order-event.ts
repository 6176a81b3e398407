import type pg from 'pg';
import { CheckpointWriteCondition, type FencingToken, type PostgresCheckpointStorage } from '../../runtime/index.js';

/** One event of the demo's order stream. */
export interface OrderEvent {
  readonly position: string;
  readonly orderId: string;
  readonly status: string;
}

/** The projection the demo maintains: one row per order, with the position and token that last wrote it. */
export const createOrderStatusTableSql = `CREATE TABLE IF NOT EXISTS order_status (
  order_id text PRIMARY KEY,
  status text NOT NULL,
  position text NOT NULL,
  written_with_token numeric NOT NULL
)`;

/**
 * Projects one event and records its checkpoint in the same transaction, fenced with the lease's token. When the
 * lease has moved on, the checkpoint write is refused, the transaction rolls back, and the projection row vanishes
 * with it: a zombie cannot leave half its work behind. Once committed, it waits until a standby has the commit, where
 * standbys stream: a failover must not lose a checkpoint reported written.
 */
export async function projectOrderEvent(
  pool: pg.Pool,
  storage: PostgresCheckpointStorage,
  subscriptionId: string,
  event: OrderEvent,
  token: FencingToken,
  beforeCheckpoint: () => Promise<void> = async () => undefined,
): Promise<void> {
  const client = await pool.connect();
  const checkpoints = storage.withinTransaction(client);
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO order_status (order_id, status, position, written_with_token) VALUES ($1, $2, $3, $4)
       ON CONFLICT (order_id) DO UPDATE SET status = EXCLUDED.status, position = EXCLUDED.position,
         written_with_token = EXCLUDED.written_with_token`,
      [event.orderId, event.status, event.position, String(token)],
    );
    await beforeCheckpoint();
    await checkpoints.save(subscriptionId, event.position, CheckpointWriteCondition.notOlderThan(token));
    await client.query('COMMIT');
  } catch (error) {
    // A refusal (CheckpointWriteConditionNotFulfilledError) lands here too: roll back, never retry.
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
  await checkpoints.waitForStandbys();
}
