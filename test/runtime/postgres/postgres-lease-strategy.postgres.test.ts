import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresLeaseStrategy } from '../../../runtime/index.js';
import { describeCompetingConsumerStrategyConformance } from '../../../runtime/testing/index.js';
import { eventually } from '../../support/leases/event-log.js';
import { ManualLeaseClock } from '../../support/leases/manual-lease-clock.js';
import { freshTableName, RecordingPostgresClient, rowCount, useSharedPostgres } from '../../support/postgres/index.js';

const postgres = useSharedPostgres();
const database = (): pg.Pool => postgres.pool();
const strategies: PostgresLeaseStrategy[] = [];

afterAll(async () => {
  await Promise.all(strategies.splice(0).map((strategy) => strategy.shutdown()));
});

/** A strategy on a fresh lease table, shut down after the suite. */
async function leaseTable(prefix: string): Promise<string> {
  const table = freshTableName(prefix);
  await new PostgresLeaseStrategy(database(), { table }).createTable();
  return table;
}

function node(
  table: string,
  options: Omit<ConstructorParameters<typeof PostgresLeaseStrategy>[1] & object, 'table'> = {},
): PostgresLeaseStrategy {
  const strategy = new PostgresLeaseStrategy(database(), { table, leaseTimeMs: 5_000, ...options });
  strategies.push(strategy);
  return strategy;
}

interface LeaseRow {
  readonly token: string;
  readonly owner: string | null;
  readonly remaining_ms: number | null;
}

async function leaseRow(table: string, subscriptionId: string): Promise<LeaseRow | undefined> {
  const { rows } = await database().query<LeaseRow>(
    `SELECT token::text AS token, owner,
            (extract(epoch FROM expires_at - clock_timestamp()) * 1000)::float8 AS remaining_ms
     FROM "${table}" WHERE subscription_id = $1`,
    [subscriptionId],
  );
  return rows[0];
}

describeCompetingConsumerStrategyConformance('PostgresLeaseStrategy on a real PostgreSQL server', async () => {
  const table = await leaseTable('lease_conformance');
  return {
    // Long enough that a reply delayed by a loaded machine still arrives within ¾ of the lease.
    leaseTimeMs: 1_000,
    node: () => new PostgresLeaseStrategy(database(), { table, leaseTimeMs: 1_000 }),
    // What an operator does to free a lease: clear the holder. Deleting the row would restart tokens at 0.
    deleteLease: async (subscriptionId) => {
      const { rowCount: freed } = await database().query(
        `UPDATE "${table}" SET owner = NULL, expires_at = NULL WHERE subscription_id = $1`,
        [subscriptionId],
      );
      expect(freed).toBe(1);
    },
  };
});

describe('PostgresLeaseStrategy table', () => {
  it('keeps one row per subscription with the holder, its token and an expiry on the database clock; release keeps the row', async () => {
    const table = await leaseTable('lease_row');
    const strategy = node(table);
    expect(await strategy.register('orders', 'node-a')).toBe(true);
    const held = await leaseRow(table, 'orders');
    expect(held?.token).toBe('0');
    expect(held?.owner).toMatch(/^node-a [0-9a-f-]{36}\/1$/u);
    expect(held?.remaining_ms).toBeGreaterThan(0);
    expect(held?.remaining_ms).toBeLessThanOrEqual(5_000);
    await strategy.shutdown();
    expect(await leaseRow(table, 'orders')).toEqual({ token: '0', owner: null, remaining_ms: null });
    expect(await rowCount(database(), table)).toBe(1);

    const next = node(table);
    expect(await next.register('orders', 'node-b')).toBe(true);
    expect(next.fencingToken('orders')).toBe(1n);
  });

  it('creates the documented columns, idempotently, and says what to run when the table is missing', async () => {
    const table = await leaseTable('lease_schema');
    await new PostgresLeaseStrategy(database(), { table }).createTable();
    const { rows } = await database().query<{ column_name: string; data_type: string; is_nullable: string }>(
      'SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position',
      [table],
    );
    expect(rows).toEqual([
      { column_name: 'subscription_id', data_type: 'text', is_nullable: 'NO' },
      { column_name: 'token', data_type: 'numeric', is_nullable: 'NO' },
      { column_name: 'owner', data_type: 'text', is_nullable: 'YES' },
      { column_name: 'expires_at', data_type: 'timestamp with time zone', is_nullable: 'YES' },
    ]);
    expect(PostgresLeaseStrategy.createTableSql()).toMatch(
      /^CREATE TABLE IF NOT EXISTS "checkpoint_fencing_leases" \(/u,
    );

    const errors: unknown[] = [];
    const missing = node(freshTableName('lease_missing'), { onError: (error) => errors.push(error) });
    expect(await missing.register('orders', 'node-a')).toBe(false);
    expect(String(errors[0])).toContain('run `await strategy.createTable()` or apply `createTableSql()`');
  });

  it('acquires and mints the token in one statement, on a primary without standbys too (a guard checks for them); refreshes and releases in one statement each', async () => {
    const table = await leaseTable('lease_statements');
    const client = new RecordingPostgresClient(database());
    const clock = new ManualLeaseClock();
    const strategy = new PostgresLeaseStrategy(client, { table, leaseTimeMs: 3_000, clock });
    strategies.push(strategy);
    await strategy.register('orders', 'node-a');
    expect(client.statements).toHaveLength(1);
    expect(client.statements[0]).toMatch(
      /^INSERT INTO .* SELECT \$1, 0, \$2, .* WHERE set_config\('synchronous_commit', CASE WHEN EXISTS \(SELECT FROM pg_stat_get_wal_senders\(\) .* ON CONFLICT .* RETURNING token::text AS token$/u,
    );
    await clock.advance(1_000);
    expect(client.statements).toHaveLength(2);
    expect(client.statements[1]).toMatch(/^UPDATE .* SET expires_at = clock_timestamp\(\)/u);
    await strategy.release('orders', 'node-a');
    expect(client.statements).toHaveLength(3);
    expect(client.statements[2]).toMatch(/^UPDATE .* SET owner = NULL, expires_at = NULL WHERE/u);
    expect(client.statements.join('\n')).not.toMatch(/advisory|\bSET (SESSION|LOCAL)\b|\bnow\(\)|DELETE/iu);
  });

  it('expires a lease by the database clock: a holder whose own clock stands still loses it to another node', async () => {
    const table = await leaseTable('lease_db_clock');
    const frozen = new ManualLeaseClock();
    const stuck = node(table, { leaseTimeMs: 600, clock: frozen });
    const other = node(table, { leaseTimeMs: 600 });
    expect(await stuck.register('orders', 'node-a')).toBe(true);
    await other.register('orders', 'node-b');
    await eventually('the database expires the lease and the other node takes it', () =>
      other.hasLock('orders', 'node-b'),
    );
    expect(other.fencingToken('orders')).toBe(1n);
    // The stuck node's own clock never moved, so it still believes it holds token 0: the fence is what stops it.
    expect(stuck.hasLock('orders', 'node-a')).toBe(true);
    expect(stuck.fencingToken('orders')).toBe(0n);
  });

  it("a stale holder's late release does not free the newer holder's lease", async () => {
    const table = await leaseTable('lease_stale_release');
    const stale = node(table);
    const fresh = node(table);
    await stale.register('orders', 'node-a');
    await database().query(`UPDATE "${table}" SET owner = NULL, expires_at = NULL`);
    expect(await fresh.register('orders', 'node-b')).toBe(true);
    expect(fresh.fencingToken('orders')).toBe(1n);
    await stale.release('orders', 'node-a');
    expect((await leaseRow(table, 'orders'))?.owner).toMatch(/^node-b /u);
  });

  it('continues exact tokens beyond 2**64', async () => {
    const table = await leaseTable('lease_big');
    const strategy = node(table);
    await database().query(`INSERT INTO "${table}" (subscription_id, token) VALUES ('orders', $1::numeric)`, [
      String(2n ** 64n + 5n),
    ]);
    await strategy.register('orders', 'node-a');
    expect(strategy.fencingToken('orders')).toBe(2n ** 64n + 6n);
  });

  it('refuses ids PostgreSQL text cannot hold unchanged, before anything is sent', async () => {
    const table = await leaseTable('lease_bad_ids');
    const client = new RecordingPostgresClient(database());
    const strategy = new PostgresLeaseStrategy(client, { table });
    strategies.push(strategy);
    await expect(strategy.register('orders\0', 'node-a')).rejects.toThrow(TypeError);
    await expect(strategy.register('orders', 'node-\ud800')).rejects.toThrow(/well-formed/u);
    expect(client.statements).toEqual([]);
    expect(() => new PostgresLeaseStrategy(database(), { table: 'leases; --' })).toThrow(TypeError);
  });
});

describe('PostgresLeaseStrategy.raiseFencingTokenAbove', () => {
  it('makes the next grant mint a token above the version, in one statement', async () => {
    const table = await leaseTable('raise_fresh');
    const client = new RecordingPostgresClient(database());
    const raiser = new PostgresLeaseStrategy(client, { table });
    await raiser.raiseFencingTokenAbove('orders', 5n);
    expect(client.statements).toHaveLength(1);
    expect(client.statements[0]).toMatch(
      /^INSERT INTO .* WHERE set_config\('synchronous_commit', CASE WHEN EXISTS .* ON CONFLICT .* token = GREATEST\(lease.token, EXCLUDED.token\)/u,
    );
    const strategy = node(table);
    await strategy.register('orders', 'node-a');
    expect(strategy.fencingToken('orders')).toBe(6n);
  });

  it('never lowers the counter', async () => {
    const table = await leaseTable('raise_never_lowers');
    const strategy = node(table);
    await strategy.raiseFencingTokenAbove('orders', 10n);
    await strategy.raiseFencingTokenAbove('orders', 3n);
    expect((await leaseRow(table, 'orders'))?.token).toBe('10');
    await strategy.register('orders', 'node-a');
    expect(strategy.fencingToken('orders')).toBe(11n);
  });

  it('frees a lease held with a token below the floor, so the next holder gets one above it', async () => {
    const table = await leaseTable('raise_frees');
    const prohibited: string[] = [];
    const holder = node(table, { leaseTimeMs: 600 });
    holder.onProhibited((_id, subscriber) => prohibited.push(subscriber));
    const other = node(table, { leaseTimeMs: 600 });
    expect(await holder.register('orders', 'node-a')).toBe(true);
    await other.register('orders', 'node-b');
    await other.raiseFencingTokenAbove('orders', 5n);
    await eventually('the old holder is told it lost the lease', () => prohibited.length === 1);
    await eventually(
      'a node holds the lease again',
      () => holder.hasLock('orders', 'node-a') || other.hasLock('orders', 'node-b'),
    );
    expect(holder.fencingToken('orders') ?? other.fencingToken('orders')).toBe(6n);
  });

  it('leaves a lease held with a token at or above the floor alone', async () => {
    const table = await leaseTable('raise_keeps');
    const holder = node(table);
    await holder.raiseFencingTokenAbove('orders', 6n);
    await holder.register('orders', 'node-a');
    expect(holder.fencingToken('orders')).toBe(7n);
    await holder.raiseFencingTokenAbove('orders', 7n);
    await holder.raiseFencingTokenAbove('orders', 2n);
    const row = await leaseRow(table, 'orders');
    expect(row?.token).toBe('7');
    expect(row?.owner).toMatch(/^node-a /u);
  });

  it('is exact beyond 2**64', async () => {
    const table = await leaseTable('raise_big');
    const strategy = node(table);
    await strategy.raiseFencingTokenAbove('orders', 2n ** 64n);
    await strategy.register('orders', 'node-a');
    expect(strategy.fencingToken('orders')).toBe(2n ** 64n + 1n);
  });

  it('refuses bad input with a TypeError and writes nothing', async () => {
    const table = await leaseTable('raise_bad');
    const strategy = node(table);
    for (const [id, version] of [
      ['', 1n],
      [42, 1n],
      ['orders', 1],
      ['orders', -1n],
      ['orders', '5'],
      ['orders\0', 1n],
    ] as const) {
      await expect(strategy.raiseFencingTokenAbove(id as never, version as never)).rejects.toThrow(TypeError);
    }
    expect(await rowCount(database(), table)).toBe(0);
  });
});

describe('PostgresLeaseStrategy renewals', () => {
  it('renews all the leases it holds with one statement per refresh interval, however many', async () => {
    const table = await leaseTable('batched_renewal');
    const client = new RecordingPostgresClient(database());
    const strategy = new PostgresLeaseStrategy(client, { table, leaseTimeMs: 600 });
    strategies.push(strategy);
    for (let partition = 0; partition < 32; partition += 1) {
      expect(await strategy.register(`orders/${partition}`, 'node-a')).toBe(true);
    }
    const before = client.statements.length;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const renewals = client.statements.slice(before).filter((text) => text.startsWith('UPDATE'));
    // Five intervals of 200 ms: one statement each (a slow machine may fit one fewer), never one per lease.
    expect(renewals.length).toBeGreaterThanOrEqual(3);
    expect(renewals.length).toBeLessThanOrEqual(6);
    expect(strategy.hasLock('orders/31', 'node-a')).toBe(true);
    expect(Number((await leaseRow(table, 'orders/31'))?.remaining_ms)).toBeGreaterThan(300);
  });
});
