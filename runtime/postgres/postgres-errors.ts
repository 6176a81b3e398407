/** A PostgreSQL error as node-postgres reports it: an `Error` with the SQLSTATE in `code`. */
function sqlState(error: unknown): string | undefined {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return undefined;
}

/**
 * How to tell a user to create a missing table, e.g. "run `await storage.createTable()` or apply
 * `createTableSql()` (PostgresCheckpointStorage.createTableSql(...))".
 */
export interface MissingTableHint {
  readonly className: string;
  readonly instanceName: string;
  readonly tableDisplay: string;
}

/**
 * Rethrows a missing table or schema (SQLSTATE 42P01, 3F000) and a table of another shape (42703) as an error that
 * says what to run; every other error, a lost connection among them, is rethrown exactly as the driver reported it.
 */
export function explainPostgresError(error: unknown, hint: MissingTableHint): never {
  const code = sqlState(error);
  if (code === '42P01' || code === '3F000') {
    throw new Error(
      `Table ${hint.tableDisplay} does not exist (PostgreSQL ${code}: ${(error as Error).message}). ` +
        `Create it: run \`await ${hint.instanceName}.createTable()\` or apply \`createTableSql()\` ` +
        `(${hint.className}.createTableSql({ table, schema })) in your migrations. Nothing is created behind your back on a first write.`,
      { cause: error },
    );
  }
  if (code === '42703') {
    throw new Error(
      `Table ${hint.tableDisplay} exists but lacks a column ${hint.className} needs (PostgreSQL 42703: ${(error as Error).message}). ` +
        `Compare it with ${hint.className}.createTableSql(); doc/postgres.md shows how to migrate a hand-written table.`,
      { cause: error },
    );
  }
  throw error;
}
