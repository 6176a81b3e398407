import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, PostgresCheckpointStorage, PostgresLeaseStrategy } from '../../runtime/index.js';
import { testPool, useSharedPostgres } from '../support/postgres/index.js';
import { builtBin, jsonRows, runCli, textRows } from './support/operator-cli.js';

// Each state built on purpose in the default tables of the suite's own database on the shared PostgreSQL server, then
// read by the spawned CLI in text and JSON; a second pair of tables in a schema of its own, named by flags.

const postgres = useSharedPostgres();
const { notOlderThan, any } = CheckpointWriteCondition;
const strategies: PostgresLeaseStrategy[] = [];
let admin: pg.Pool;
let store: string[];

const expectedFlags: Record<string, readonly string[]> = {
  healthy: [],
  stuck: ['stuck'],
  'no-version': ['no-version'],
  stray: ['expired-lease'],
  expired: ['expired-lease'],
};

beforeAll(async () => {
  builtBin();
  admin = postgres.pool();
  store = ['--postgres', postgres.connectionString];
  const storage = new PostgresCheckpointStorage(admin);
  await storage.createTable();
  const node = new PostgresLeaseStrategy(postgres.newPool({ max: 2 }), {
    leaseTimeMs: 120_000,
    onError: () => undefined,
  });
  strategies.push(node);
  await node.createTable();

  await node.register('healthy', 'node-a');
  await storage.save('healthy', 'cp-healthy', notOlderThan(node.fencingToken('healthy') ?? -1n));

  // stuck: written with token 5, then the lease row, and with it the token counter, deleted by hand.
  await node.raiseFencingTokenAbove('stuck', 4n);
  await node.register('stuck', 'node-a');
  await storage.save('stuck', 'cp-stuck', notOlderThan(5n));
  expect(
    (await admin.query('DELETE FROM checkpoint_fencing_leases WHERE subscription_id = $1', ['stuck'])).rowCount,
  ).toBe(1);

  await node.register('no-version', 'node-a');
  await storage.save('no-version', 'cp-any', any());

  // stray: a fence recorded before any checkpoint (a row with a NULL checkpoint), its consumers gone: a fence, as
  // reset leaves it, not flagged stray (ADR 1004).
  await storage.advanceWriteVersion('stray', 3n);
  await node.raiseFencingTokenAbove('stray', 3n);

  // expired: a holder that stopped without releasing; the row keeps its owner past expires_at.
  // A pool of the test's own, ended here: the holder's process is gone.
  const crashingPool = testPool(postgres, { max: 1 });
  const crashing = new PostgresLeaseStrategy(crashingPool, { leaseTimeMs: 300, onError: () => undefined });
  await crashing.register('expired', 'node-b');
  await storage.save('expired', 'cp-expired', notOlderThan(crashing.fencingToken('expired') ?? -1n));
  await crashingPool.end();
  await crashing.shutdown();
  await new Promise((resolve) => setTimeout(resolve, 500));
}, 180_000);

afterAll(async () => {
  await Promise.all(strategies.map((strategy) => strategy.shutdown()));
});

describe('inspect --postgres on a real PostgreSQL server', { timeout: 60_000 }, () => {
  it('flags exactly the state each subscription was put in, in JSON and in text', async () => {
    const run = await runCli(['inspect', ...store, '--json']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(1);
    const rows = jsonRows(run);
    expect(Object.fromEntries(rows.map((row) => [row.id, row.flags]))).toEqual(expectedFlags);
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get('healthy')).toMatchObject({ storedVersion: '0', leaseToken: '0', nextToken: '1' });
    expect(byId.get('stuck')).toMatchObject({ storedVersion: '5', leaseHolder: null, nextToken: '0' });
    expect(byId.get('stray')).toMatchObject({ checkpoint: null, storedVersion: '3', nextToken: '4' });
    expect(byId.get('expired')?.leaseHolder).toMatch(/^node-b /u);
    expect(byId.get('expired')?.expiresInMs).toBeLessThan(0);
    expect(byId.get('healthy')?.records).toEqual({
      checkpoints: 'checkpoint_fencing_checkpoints',
      leases: 'checkpoint_fencing_leases',
    });

    const text = await runCli(['inspect', ...store]);
    const table = textRows(text);
    for (const [id, flags] of Object.entries(expectedFlags)) {
      expect(table.get(id)?.at(-1), id).toBe(flags.length === 0 ? '-' : flags.join(','));
    }
    expect(table.get('expired')?.[5]).toMatch(/^expired \d+\.\d s ago$/u);
    expect(text.stdout).toMatch(
      /^5 subscriptions, 4 flagged \(stuck 1, no-version 1, expired-lease 2\); 9 rows read from checkpoint_fencing_checkpoints and checkpoint_fencing_leases \(postgresql:\/\/\*\*\*@127\.0\.0\.1:\d+\/suite_\w+, \d+\.\d s\)$/mu,
    );
  });

  it('reads tables named by --schema, --table and --lease-table, and names a missing one', async () => {
    await admin.query('CREATE SCHEMA ops');
    const storage = new PostgresCheckpointStorage(admin, { schema: 'ops', table: 'cp' });
    const strategy = new PostgresLeaseStrategy(admin, { schema: 'ops', table: 'lt' });
    await storage.createTable();
    await strategy.createTable();
    await strategy.raiseFencingTokenAbove('elsewhere', 8n);
    await storage.save('elsewhere', 'cp-8', notOlderThan(8n));
    const named = ['--schema', 'ops', '--table', 'cp', '--lease-table', 'lt'];
    const run = await runCli(['inspect', ...store, ...named, '--json']);
    expect(jsonRows(run).map((row) => [row.id, row.storedVersion, row.nextToken, row.flags])).toEqual([
      ['elsewhere', '8', '9', ['expired-lease']],
    ]);

    const missing = await runCli(['inspect', ...store, '--schema', 'ops', '--table', 'nope']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(
      /^checkpoint-fencing inspect: table ops\.nope does not exist \(relation "ops\.nope" does not exist\); name the tables your application uses with --schema, --table and --lease-table\.\n$/u,
    );
  });

  it('repairs the stuck subscription through the strategy, and resets one through the storage and the strategy', async () => {
    const dryRun = await runCli(['repair', 'stuck', '--raise-token', ...store]);
    expect(dryRun).toMatchObject({ status: 0, stderr: '' });
    expect(dryRun.stdout).toMatch(
      /^would raise the token counter of "stuck" to its stored version 5: the next grant would mint 6 instead of 0/u,
    );
    expect(
      (await admin.query('SELECT 1 FROM checkpoint_fencing_leases WHERE subscription_id = $1', ['stuck'])).rowCount,
    ).toBe(0);

    const repaired = await runCli(['repair', 'stuck', '--raise-token', '--yes', ...store]);
    expect(repaired).toMatchObject({ status: 0, stderr: '' });
    const { rows } = await admin.query<{ token: string }>(
      'SELECT token::text AS token FROM checkpoint_fencing_leases WHERE subscription_id = $1',
      ['stuck'],
    );
    expect(rows).toEqual([{ token: '5' }]);

    const reset = await runCli(['reset', 'stray', '--yes', ...store]);
    expect(reset).toMatchObject({ status: 0, stderr: '' });
    expect(reset.stdout).toBe(
      'reset "stray": fenced it at version 4, above every token minted for it: every earlier holder\'s write is refused, ' +
        'and the next grant mints 5 and delivers from the start position.\n',
    );
    const fenced = await admin.query(
      'SELECT c.checkpoint, c.version::text AS version, l.token::text AS token FROM checkpoint_fencing_checkpoints c ' +
        'JOIN checkpoint_fencing_leases l USING (subscription_id) WHERE subscription_id = $1',
      ['stray'],
    );
    expect(fenced.rows).toEqual([{ checkpoint: null, version: '4', token: '4' }]);
  });
});
