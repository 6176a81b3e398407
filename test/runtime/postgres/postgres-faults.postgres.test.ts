import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  PostgresCheckpointStorage,
  PostgresLeaseStrategy,
} from '../../../runtime/index.js';
import { eventually } from '../../support/leases/event-log.js';
import { HistoryRecorder, RecordingCheckpointStorage } from '../../support/linearizability/index.js';
import {
  freshTableName,
  testPool,
  postgresForThisFile,
  type PostgresServerProcess,
} from '../../support/postgres/index.js';
import { assertLinearizable } from '../../reliability/model-based/concurrent-checkpoint-commands.js';

const { notOlderThan } = CheckpointWriteCondition;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const postgres = postgresForThisFile();
const running = (): PostgresServerProcess => postgres.server();
const pools: pg.Pool[] = [];

afterAll(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
});

function connect(options: pg.PoolConfig = {}): pg.Pool {
  const pool = testPool(running(), { connectionTimeoutMillis: 2_000, ...options });
  pools.push(pool);
  return pool;
}

async function freshTable(pool: pg.Pool): Promise<string> {
  const table = freshTableName('faults');
  await new PostgresCheckpointStorage(pool, { table }).createTable();
  return table;
}

/**
 * Four writers stamping ever higher tokens from a shared counter, and a reader, each on its own pool, all recorded,
 * until `fault` has run and `afterMs` more have passed. The history must be linearizable: an outcome the client never
 * heard counts as unknown, so "no accepted write lost, none reported accepted that was not" is what is checked.
 */
async function recordAround(fault: () => Promise<void>, afterMs: number): Promise<HistoryRecorder> {
  const table = await freshTable(connect());
  const recorder = new HistoryRecorder();
  let token = 0n;
  const state = { running: true, accepted: 0 };
  let faultOver: () => void = () => undefined;
  const recovered = new Promise<void>((resolve) => {
    faultOver = resolve;
  });
  const loops = Array.from({ length: 5 }, async (_, index) => {
    // A pool of one connection each: a connection broken by the fault is replaced on the next call.
    const storage = new RecordingCheckpointStorage(
      new PostgresCheckpointStorage(connect({ max: 1 }), { table }),
      recorder,
      `client-${index}`,
    );
    while (state.running) {
      try {
        if (index === 4) {
          await storage.read('orders');
        } else {
          token += 1n;
          await storage.save('orders', `cp-${token}`, notOlderThan(token));
          state.accepted += 1;
        }
      } catch (error) {
        // Refusals and connection errors are in the history. A client whose call failed waits out the fault, so it
        // leaves one unknown outcome (the call in flight), not one per retry: each may take effect at any later time,
        // and dozens of them would make the checker's search explode.
        if (!(error instanceof CheckpointWriteConditionNotFulfilledError)) {
          await recovered;
        }
      }
      await sleep(2);
    }
  });
  await eventually('writes are being accepted', () => state.accepted >= 20);
  await fault();
  faultOver();
  const acceptedBefore = state.accepted;
  await eventually('writes are accepted again after the fault', () => state.accepted > acceptedBefore + 20);
  await sleep(afterMs);
  state.running = false;
  await Promise.all(loops);
  const final = new RecordingCheckpointStorage(new PostgresCheckpointStorage(connect(), { table }), recorder, 'final');
  await final.read('orders');
  await final.writeVersion('orders');
  return recorder;
}

describe('PostgresCheckpointStorage under faults', () => {
  it('pg_ctl restart -m immediate mid-run: no accepted write lost, none reported accepted that was not', async () => {
    const recorder = await recordAround(() => running().restart('immediate'), 200);
    const history = recorder.history();
    expect(history.some((event) => event.type === 'info')).toBe(true);
    assertLinearizable(recorder);
  }, 120_000);

  it('pg_terminate_backend on every connection mid-run: the same guarantees', async () => {
    const admin = connect({ max: 1 });
    const recorder = await recordAround(async () => {
      const { rows } = await admin.query<{ terminated: boolean }>(
        `SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity
         WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND datname = current_database()`,
      );
      expect(rows.filter(({ terminated }) => terminated).length).toBeGreaterThanOrEqual(5);
    }, 200);
    // Connections terminated between statements are dropped by the pool before their next use; one cut off mid-statement is unknown.
    assertLinearizable(recorder);
  }, 120_000);

  it('a write cut off by pg_terminate_backend while it waits surfaces as the driver’s error, and wrote nothing', async () => {
    const pool = connect();
    const storage = new PostgresCheckpointStorage(pool, { table: await freshTable(pool) });
    await storage.save('orders', 'offset-1', notOlderThan(1));
    const locker = await pool.connect();
    const writer = new pg.Client({ connectionString: running().connectionString });
    writer.on('error', () => undefined);
    await writer.connect();
    const writerPid = (await writer.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
    try {
      await locker.query('BEGIN');
      await storage.withinTransaction(locker).save('orders', 'offset-2', notOlderThan(2));
      const pending = storage
        .withinTransaction(writer)
        .save('orders', 'offset-3', notOlderThan(3))
        .catch((error: unknown) => error);
      await eventually('the write waits for the row lock', async () => {
        const { rows } = await pool.query<{ waiting: boolean }>(
          "SELECT wait_event_type = 'Lock' AS waiting FROM pg_stat_activity WHERE pid = $1",
          [writerPid],
        );
        return rows[0]?.waiting === true;
      });
      await pool.query('SELECT pg_terminate_backend($1)', [writerPid]);
      const error = await pending;
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
      expect(String(error)).toMatch(/terminat/iu);
      await locker.query('ROLLBACK');
    } finally {
      locker.release();
      await writer.end().catch(() => undefined);
    }
    expect(await storage.read('orders')).toBe('offset-1');
    expect(await storage.writeVersion('orders')).toBe(1n);
  });

  it('a statement timeout cancels a waiting write: the driver’s error, not a refusal, and nothing written', async () => {
    const pool = connect();
    const table = await freshTable(pool);
    const storage = new PostgresCheckpointStorage(pool, { table });
    const impatient = new PostgresCheckpointStorage(connect({ statement_timeout: 300 }), { table });
    await storage.save('orders', 'offset-1', notOlderThan(1));
    const locker = await pool.connect();
    try {
      await locker.query('BEGIN');
      await storage.withinTransaction(locker).save('orders', 'offset-9', notOlderThan(9));
      const error = await impatient.save('orders', 'offset-2', notOlderThan(2)).catch((reason: unknown) => reason);
      expect(error).not.toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
      expect(error).toMatchObject({ code: '57014' });
      await locker.query('ROLLBACK');
    } finally {
      locker.release();
    }
    expect(await storage.read('orders')).toBe('offset-1');
    expect(await impatient.save('orders', 'offset-2', notOlderThan(2))).toBe('offset-2');
  });

  it('a lease acquire that times out is reported and tried again; the lease arrives once the row is free', async () => {
    const pool = connect();
    const table = freshTableName('fault_leases');
    await new PostgresLeaseStrategy(pool, { table }).createTable();
    await pool.query(`INSERT INTO "${table}" (subscription_id, token) VALUES ('orders', 4)`);
    const errors: unknown[] = [];
    const strategy = new PostgresLeaseStrategy(connect({ statement_timeout: 200 }), {
      table,
      leaseTimeMs: 600,
      onError: (error) => errors.push(error),
    });
    const locker = await pool.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`SELECT * FROM "${table}" FOR UPDATE`);
      expect(await strategy.register('orders', 'node-a')).toBe(false);
      expect(errors[0]).toMatchObject({ code: '57014' });
      await locker.query('COMMIT');
    } finally {
      locker.release();
    }
    await eventually('the lease arrives', () => strategy.hasLock('orders', 'node-a'));
    expect(strategy.fencingToken('orders')).toBe(5n);
    await strategy.shutdown();
  });
});
