import type { PostgresClient } from './postgres-client.js';

/**
 * Runs a `CREATE TABLE IF NOT EXISTS`. Two sessions running it at the same moment can both pass the "not exists"
 * check and one then fails on the catalog's unique index (23505) or with 42P07; the table exists either way.
 */
export async function createTableIdempotently(client: PostgresClient, createTableSql: string): Promise<void> {
  try {
    await client.query(createTableSql, []);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    if (code !== '23505' && code !== '42P07') {
      throw error;
    }
  }
}
