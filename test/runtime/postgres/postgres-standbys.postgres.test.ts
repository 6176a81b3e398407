import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteNotReplicatedError,
  PostgresCheckpointStorage,
  PostgresLeaseStrategy,
  type PostgresCheckpointStorageOptions,
  type PostgresLeaseStrategyOptions,
} from '../../../runtime/index.js';
import { PostgresDualAnchorCheckpointStore } from '../../../runtime/dual-anchor-entry.js';
import { eventually } from '../../support/leases/event-log.js';
import {
  freshTableName,
  RecordingPostgresClient,
  startPgBouncer,
  startReplicatedPostgres,
  testPool,
  type PostgresConnectionDetails,
  type ReplicatedPostgres,
} from '../../support/postgres/index.js';

// waitForStandbys on a primary with one asynchronous streaming standby (made with pg_basebackup), reached through a
// relay the tests can hold: grants and conditional writes are on the standby when they resolve; held back, they are
// handed back or rejected within the timeout; a synchronous standby never holds them in SyncRep; a role that cannot
// see the walsenders is refused before anything is written; the caller's own transaction and pgbouncer.

const { notOlderThan, ifAbsent } = CheckpointWriteCondition;
const timeoutMs = 300;
/** How late past its timeout a wait may end on a loaded 2-core machine, and still count as bounded. */
const slackMs = 1_500;

let topology: ReplicatedPostgres;
const pools: pg.Pool[] = [];
const strategies: PostgresLeaseStrategy[] = [];

beforeAll(async () => {
  topology = await startReplicatedPostgres();
});

afterAll(async () => {
  await Promise.all(strategies.splice(0).map((strategy) => strategy.shutdown()));
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
  await topology.stop();
});

function pool(server: PostgresConnectionDetails = topology.primary, user = 'postgres', max = 4): pg.Pool {
  const made = testPool(
    { ...server, connectionString: `postgresql://${user}@${server.host}:${server.port}/postgres` },
    { max },
  );
  pools.push(made);
  return made;
}

async function storage(
  client: pg.Pool | RecordingPostgresClient = pool(),
  options: PostgresCheckpointStorageOptions = {},
): Promise<PostgresCheckpointStorage> {
  const made = new PostgresCheckpointStorage(client, {
    table: freshTableName('standby_checkpoints'),
    waitForStandbysTimeoutMs: timeoutMs,
    ...options,
  });
  await made.createTable();
  return made;
}

async function strategy(
  client: pg.Pool = pool(),
  options: PostgresLeaseStrategyOptions & { errors?: unknown[] } = {},
): Promise<PostgresLeaseStrategy> {
  const { errors, ...rest } = options;
  const made = new PostgresLeaseStrategy(client, {
    table: freshTableName('standby_leases'),
    waitForStandbysTimeoutMs: timeoutMs,
    onError: (error) => errors?.push(error),
    ...rest,
  });
  strategies.push(made);
  await made.createTable();
  return made;
}

/**
 * What the standby itself holds, read there once it has replayed every byte it had reported written: the library
 * waits for the standby's `write_lsn`, and a hot standby's reads see replayed WAL only, a moment later (on a loaded
 * machine, later than the next statement here). The link is held from the call on, so nothing sent after the
 * operation resolved counts; released and caught up again before this returns.
 */
async function onStandby(statement: string): Promise<unknown[]> {
  const standby = topology.standby;
  if (standby === undefined) {
    throw new Error('no standby');
  }
  return withLinkHeld(async () => {
    const { rows } = await topology.administer(
      `SELECT write_lsn::text AS lsn FROM pg_stat_replication WHERE application_name = '${topology.standbyName}'`,
    );
    const written = String((rows[0] as { lsn?: unknown } | undefined)?.lsn);
    const client = new pg.Client({ connectionString: standby.connectionString });
    await client.connect();
    try {
      await eventually(`the standby replays what it wrote, up to ${written}`, async () => {
        const replay = await client.query<{ replayed: boolean }>(
          `SELECT pg_last_wal_replay_lsn() >= '${written}'::pg_lsn AS replayed`,
        );
        return replay.rows[0]?.replayed === true;
      });
      return (await client.query<Record<string, unknown>>(statement)).rows;
    } finally {
      await client.end();
    }
  });
}

/** How long `operation` took to settle, and how: its value, or its error. */
async function timed<T>(operation: () => Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const started = performance.now();
  try {
    const value = await operation();
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

async function withLinkHeld<T>(run: () => Promise<T>): Promise<T> {
  topology.link.hold();
  try {
    return await run();
  } finally {
    await topology.waitUntilCaughtUp();
  }
}

describe('waitForStandbys with a streaming asynchronous standby', () => {
  it('a grant, a fenced write, ifAbsent, advanceWriteVersion and a fenced anchor write are on the standby when they resolve', async () => {
    const leaseTable = freshTableName('on_standby_leases');
    const checkpointTable = freshTableName('on_standby_checkpoints');
    const anchorTable = freshTableName('on_standby_anchors');
    const leases = await strategy(pool(), { table: leaseTable });
    const checkpoints = await storage(pool(), { table: checkpointTable });
    const anchors = new PostgresDualAnchorCheckpointStore(pool(), { table: anchorTable });
    await anchors.createTable();
    await topology.waitUntilCaughtUp();

    expect(await leases.register('orders', 'node-a')).toBe(true);
    expect(await onStandby(`SELECT token::text, owner IS NOT NULL AS held FROM "${leaseTable}"`)).toEqual([
      { token: '0', held: true },
    ]);
    await checkpoints.save('orders', 'pos-1', notOlderThan(0));
    await checkpoints.save('refunds', 'pos-1', ifAbsent());
    await checkpoints.advanceWriteVersion('payments', 4n);
    expect(
      await onStandby(`SELECT subscription_id, checkpoint, version::text FROM "${checkpointTable}" ORDER BY 1`),
    ).toEqual([
      { subscription_id: 'orders', checkpoint: 'pos-1', version: '0' },
      { subscription_id: 'payments', checkpoint: null, version: '4' },
      { subscription_id: 'refunds', checkpoint: 'pos-1', version: null },
    ]);
    await anchors.saveProcessed('orders', 'p', new Date(), new Date(), notOlderThan(3));
    expect(await onStandby(`SELECT last_processed_token, version::text FROM "${anchorTable}"`)).toEqual([
      { last_processed_token: '"p"', version: '3' },
    ]);
  });

  it('with the standby held back, a grant is handed back and conditional writes reject as not replicated, each within its timeout', async () => {
    const errors: unknown[] = [];
    const leaseTable = freshTableName('held_leases');
    const leases = await strategy(pool(), { table: leaseTable, errors });
    const checkpoints = await storage();
    const anchors = new PostgresDualAnchorCheckpointStore(pool(), {
      table: freshTableName('held_anchors'),
      waitForStandbysTimeoutMs: timeoutMs,
    });
    await anchors.createTable();
    await topology.waitUntilCaughtUp();

    const results = await withLinkHeld(async () => ({
      grant: await timed(() => leases.register('orders', 'node-a')),
      notOlderThan: await timed(() => checkpoints.save('orders', 'pos-1', notOlderThan(1))),
      ifAbsent: await timed(() => checkpoints.save('refunds', 'pos-1', ifAbsent())),
      advance: await timed(() => checkpoints.advanceWriteVersion('payments', 4n)),
      anchor: await timed(() => anchors.saveProcessed('orders', 'p', new Date(), new Date(), notOlderThan(3))),
      raise: await timed(() => leases.raiseFencingTokenAbove('refunds', 9n)),
      lease: (
        await topology.administer(`SELECT token::text, owner FROM "${leaseTable}" WHERE subscription_id = 'orders'`)
      ).rows,
    }));
    console.info(
      `held standby, ${timeoutMs} ms timeout: ` +
        Object.entries(results)
          .flatMap(([name, result]) => ('ms' in result ? [`${name} ${result.ms.toFixed(0)} ms`] : []))
          .join(', '),
    );

    expect(results.grant.value).toBe(false);
    // The token was minted on the primary, then handed back: the lease is free, the counter kept.
    expect(results.lease).toEqual([{ token: '0', owner: null }]);
    expect(String(errors[0])).toMatch(
      /^Error: Lease of subscription "orders" was not taken: token 0 reached 0 of the 1 standby waitForStandbys asks for in time, so a failover could lose it\./u,
    );
    for (const [name, operation] of [
      ['notOlderThan(1)', results.notOlderThan],
      ['ifAbsent()', results.ifAbsent],
      ['advanceWriteVersion(4)', results.advance],
      ['notOlderThan(3)', results.anchor],
    ] as const) {
      expect(operation.error, name).toBeInstanceOf(CheckpointWriteNotReplicatedError);
      expect(operation.error, name).toMatchObject({ operation: name, replicas: 1, acknowledged: 0, timeoutMs });
    }
    expect(String(results.raise.error)).toMatch(
      /token floor of subscription "refunds" was raised above 9 on the primary/u,
    );
    for (const result of [results.grant, results.notOlderThan, results.ifAbsent, results.advance, results.anchor]) {
      expect(result.ms).toBeGreaterThanOrEqual(timeoutMs - 5);
      expect(result.ms).toBeLessThan(timeoutMs + slackMs);
    }

    // Caught up again, the same calls succeed.
    expect(await leases.register('payments', 'node-a')).toBe(true);
    await checkpoints.save('orders', 'pos-2', notOlderThan(1));
  });

  it('a number waits for that many standbys: with one streaming, waitForStandbys 2 confirms nothing', async () => {
    const checkpoints = await storage(pool(), { waitForStandbys: 2 });
    await expect(checkpoints.save('orders', 'pos-1', notOlderThan(1))).rejects.toMatchObject({
      name: 'CheckpointWriteNotReplicatedError',
      replicas: 2,
      acknowledged: 1,
    });
  });

  it('waitForStandbys false: the write is acknowledged while the standby is held back', async () => {
    const checkpoints = await storage(pool(), { waitForStandbys: false });
    const written = await withLinkHeld(() => timed(() => checkpoints.save('orders', 'pos-1', notOlderThan(1))));
    expect(written.error).toBeUndefined();
    expect(written.ms).toBeLessThan(timeoutMs);
  });
});

describe('waitForStandbys with synchronous_standby_names naming the standby', () => {
  beforeAll(async () => {
    await topology.administer(`ALTER SYSTEM SET synchronous_standby_names = '${topology.standbyName}'`);
    await topology.administer('SELECT pg_reload_conf()');
    await topology.waitUntilCaughtUp();
  });
  afterAll(async () => {
    await topology.administer('ALTER SYSTEM RESET synchronous_standby_names');
    await topology.administer('SELECT pg_reload_conf()');
  });

  it('a lagging synchronous standby fails a grant and a write within the library’s timeout; opted out, the write waits in SyncRep', async () => {
    const errors: unknown[] = [];
    const leases = await strategy(pool(), { errors });
    const checkpoints = await storage();
    const optedOut = await storage(pool(), { waitForStandbys: false });
    expect(await leases.register('caught-up', 'node-a')).toBe(true);

    const { grant, write, unchecked } = await withLinkHeld(async () => {
      const pending = optedOut.save('orders', 'pos-1', notOlderThan(1)).then(
        () => performance.now(),
        (error: unknown) => error,
      );
      const heldSince = performance.now();
      const results = {
        grant: await timed(() => leases.register('orders', 'node-a')),
        write: await timed(() => checkpoints.save('orders', 'pos-1', notOlderThan(1))),
      };
      // Still waiting in SyncRep, long past the library's timeout: statement_timeout does not bound it either.
      const settledWhileHeld = await Promise.race([pending.then(() => true), sleep(3 * timeoutMs).then(() => false)]);
      const releasedAt = performance.now();
      topology.link.release();
      return { ...results, unchecked: { settledWhileHeld, heldMs: releasedAt - heldSince, done: await pending } };
    });
    console.info(
      `synchronous standby held, ${timeoutMs} ms timeout: grant ${grant.ms.toFixed(0)} ms, write ${write.ms.toFixed(0)} ms; ` +
        `opted out, the write still waited after ${unchecked.heldMs.toFixed(0)} ms`,
    );
    expect(grant.value).toBe(false);
    expect(String(errors[0])).toMatch(/reached 0 of the 1 standby/u);
    expect(write.error).toBeInstanceOf(CheckpointWriteNotReplicatedError);
    for (const result of [grant, write]) {
      expect(result.ms).toBeLessThan(timeoutMs + slackMs);
    }
    expect(unchecked.settledWhileHeld).toBe(false);
    expect(typeof unchecked.done).toBe('number');
  });

  it('with the synchronous standby streaming, grants and writes are confirmed', async () => {
    const leases = await strategy();
    const checkpoints = await storage();
    expect(await leases.register('orders', 'node-a')).toBe(true);
    await checkpoints.save('orders', 'pos-1', notOlderThan(leases.fencingToken('orders') ?? -1n));
  });
});

describe('waitForStandbys and the role’s privileges', () => {
  const role = 'app_without_monitor';
  let appPool: pg.Pool;
  beforeAll(async () => {
    await topology.administer(`CREATE ROLE ${role} LOGIN`);
    await topology.administer(`GRANT CREATE ON SCHEMA public TO ${role}`);
    appPool = pool(topology.primary, role);
    await topology.waitUntilCaughtUp();
  });

  it('a role that cannot see the walsenders keeps no grant and has no write confirmed, told the privilege and the fix; granted pg_monitor, it works', async () => {
    const errors: unknown[] = [];
    const leaseTable = freshTableName('unprivileged_leases');
    const leases = await strategy(appPool, { table: leaseTable, errors });
    const checkpoints = await storage(appPool);

    expect(await leases.register('orders', 'node-a')).toBe(false);
    const privilege =
      'The primary streams WAL to walsenders whose positions role "app_without_monitor" cannot see: pg_stat_replication ' +
      'shows them only to roles with pg_read_all_stats, so waitForStandbys cannot tell whether a standby holds a grant ' +
      'or a write. Grant it (GRANT pg_monitor TO app_without_monitor; pg_monitor includes pg_read_all_stats), or set ' +
      'waitForStandbys: false';
    expect(String(errors[0])).toContain(
      `Lease of subscription "orders" was not taken: token 0 could not be confirmed on the standbys (${privilege}`,
    );
    // Handed back: the token was minted, the lease is free.
    expect((await topology.administer(`SELECT token::text, owner FROM "${leaseTable}"`)).rows).toEqual([
      { token: '0', owner: null },
    ]);
    const write = await timed(() => checkpoints.save('orders', 'pos-1', notOlderThan(1)));
    expect(write.error).toBeInstanceOf(CheckpointWriteNotReplicatedError);
    expect((write.error as Error).message).toContain(`waiting for 1 standby failed (Error: ${privilege}`);

    // Opted out, nothing waits; granted the privilege, the waits confirm.
    const optedOut = await storage(appPool, { waitForStandbys: false });
    await optedOut.save('orders', 'pos-1', notOlderThan(1));
    await topology.administer(`GRANT pg_monitor TO ${role}`);
    expect(await leases.register('refunds', 'node-a')).toBe(true);
    await checkpoints.save('orders', 'pos-2', notOlderThan(2));
  });
});

describe('waitForStandbys inside the caller’s transaction', () => {
  it('the statements leave the transaction’s commit as it is; waitForStandbys() after COMMIT confirms it, or rejects while the standby is held', async () => {
    const recording = new RecordingPostgresClient(pool());
    const checkpoints = await storage(recording);
    const connections = pool();
    const commitThrough = async (save: (bound: PostgresCheckpointStorage) => Promise<unknown>) => {
      const client = await connections.connect();
      try {
        await client.query('BEGIN');
        const bound = checkpoints.withinTransaction(client);
        await save(bound);
        const { rows } = await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
        await client.query('COMMIT');
        return { bound, synchronousCommit: rows[0]?.synchronous_commit };
      } finally {
        client.release();
      }
    };
    await topology.waitUntilCaughtUp();

    const confirmed = await commitThrough((bound) => bound.save('orders', 'pos-1', notOlderThan(1)));
    expect(confirmed.synchronousCommit).toBe('on');
    const before = recording.statements.length;
    await confirmed.bound.waitForStandbys();
    expect(recording.statements.length).toBeGreaterThan(before);

    const unconditional = await commitThrough((bound) => bound.save('orders', 'pos-2', CheckpointWriteCondition.any()));
    const beforeUnconditional = recording.statements.length;
    await unconditional.bound.waitForStandbys();
    expect(recording.statements.length, 'nothing to confirm: no statement').toBe(beforeUnconditional);

    const held = await withLinkHeld(async () => {
      const { bound } = await commitThrough((binding) => binding.save('orders', 'pos-3', notOlderThan(2)));
      return timed(() => bound.waitForStandbys());
    });
    expect(held.error).toBeInstanceOf(CheckpointWriteNotReplicatedError);
    expect(held.error).toMatchObject({ subscriptionId: 'orders', operation: 'notOlderThan(2)', acknowledged: 0 });
    expect(held.ms).toBeLessThan(timeoutMs + slackMs);
  });
});

describe('waitForStandbys through pgbouncer in transaction mode', () => {
  it('grants and writes are confirmed on the standby, and held back they fail within the timeout', async () => {
    const bouncer = await startPgBouncer(topology.primary, { poolMode: 'transaction', poolSize: 2 });
    try {
      const through = pool(bouncer, 'postgres', 6);
      const errors: unknown[] = [];
      const leases = await strategy(through, { errors });
      const checkpoints = await storage(through);
      expect(await leases.register('orders', 'node-a')).toBe(true);
      await checkpoints.save('orders', 'pos-1', notOlderThan(0));
      const held = await withLinkHeld(async () => ({
        grant: await timed(() => leases.register('refunds', 'node-a')),
        write: await timed(() => checkpoints.save('orders', 'pos-2', notOlderThan(0))),
      }));
      expect(held.grant.value).toBe(false);
      expect(held.write.error).toBeInstanceOf(CheckpointWriteNotReplicatedError);
      expect(held.grant.ms).toBeLessThan(timeoutMs + slackMs);
      expect(held.write.ms).toBeLessThan(timeoutMs + slackMs);
    } finally {
      await bouncer.stop();
    }
  });
});

describe('waitForStandbys when the standby goes away', () => {
  it('the first write after it left polls once and finds none; from then on a write is one statement again', async () => {
    const recording = new RecordingPostgresClient(pool());
    const checkpoints = await storage(recording);
    await topology.waitUntilCaughtUp();
    await checkpoints.save('orders', 'pos-1', notOlderThan(1));
    expect(recording.statements.length, 'guard tripped, sent again locally, then polled').toBeGreaterThanOrEqual(4);

    await topology.standby?.stop();
    await eventuallyNoWalSender();
    const sent = async (write: () => Promise<unknown>): Promise<string[]> => {
      const before = recording.statements.length;
      await write();
      return recording.statements
        .slice(before)
        .map((text) => (/standby_check/u.test(text) ? text.slice(0, 90) : text.slice(0, 40)));
    };
    expect(await sent(() => checkpoints.save('orders', 'pos-2', notOlderThan(2)))).toHaveLength(2);
    expect(await sent(() => checkpoints.save('orders', 'pos-3', notOlderThan(3)))).toHaveLength(1);
    await topology.recover();
  });
});

async function eventuallyNoWalSender(): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    const { rowCount } = await topology.administer('SELECT FROM pg_stat_replication');
    if (rowCount === 0) {
      return;
    }
    await sleep(20);
  }
  throw new Error('The walsender of the stopped standby never went away.');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
