import type { PostgresStatementRunner } from './postgres-statement-runner.js';

/**
 * Runs a `CREATE TABLE IF NOT EXISTS` through a store's runner, so a missing schema is explained. Two sessions running
 * it at the same moment can both pass the "not exists" check and one then fails on the catalog's unique index (23505)
 * or with 42P07; the table exists either way.
 */
export async function createTableIdempotently(runner: PostgresStatementRunner, createTableSql: string): Promise<void> {
  try {
    await runner.query(createTableSql, []);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    if (code !== '23505' && code !== '42P07') {
      throw error;
    }
  }
}
