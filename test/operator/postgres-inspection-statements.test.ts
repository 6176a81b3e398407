import { describe, expect, it } from 'vitest';
import { PostgresCheckpointStorage, PostgresLeaseStrategy } from '../../runtime/index.js';
import { postgresInspectionStatements } from '../../operator/postgres/postgres-inspection-statements.js';

const flags = {
  schema: '--schema',
  table: '--table',
  leaseTable: '--lease-table',
  membershipTable: '--membership-table',
};

describe('postgresInspectionStatements', () => {
  it('reads the tables the storage and the strategy create, by default and when named', () => {
    const defaults = postgresInspectionStatements({}, flags);
    expect(PostgresCheckpointStorage.createTableSql()).toContain(`"${defaults.checkpointTable}"`);
    expect(PostgresLeaseStrategy.createTableSql()).toContain(`"${defaults.leaseTable}"`);
    expect(defaults.subscriptions).toContain('FROM "checkpoint_fencing_checkpoints" WHERE');
    expect(defaults.subscriptions).toContain('FROM "checkpoint_fencing_leases" WHERE');

    const named = postgresInspectionStatements({ schema: 'ops', table: 'cp', leaseTable: 'lt' }, flags);
    expect(named).toMatchObject({ checkpointTable: 'ops.cp', leaseTable: 'ops.lt' });
    expect(PostgresCheckpointStorage.createTableSql({ schema: 'ops', table: 'cp' })).toContain(
      named.subscriptions.slice(named.subscriptions.indexOf('"ops"'), named.subscriptions.indexOf(' WHERE')),
    );
    expect(named.subscriptions).toContain('FROM "ops"."lt" WHERE');
  });

  it.each([
    [{ table: 'bad name' }, /^--table must be a plain PostgreSQL identifier .* got "bad name"/],
    [{ leaseTable: 'x;drop' }, /^--lease-table must be a plain PostgreSQL identifier/],
    [{ schema: '1st' }, /^--schema must be a plain PostgreSQL identifier/],
  ])('names the setting that is not a plain identifier: %o', (tables, message) => {
    expect(() => postgresInspectionStatements(tables, flags)).toThrow(message);
  });
});
