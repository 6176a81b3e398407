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
  /** The schema the options name, if any: a missing one is created with `CREATE SCHEMA`, never by `createTable()`. */
  readonly schema: string | undefined;
}

/**
 * Rethrows a missing table or schema (SQLSTATE 42P01, 3F000) and a table of another shape (42703) as an error that
 * says what to run; every other error, a lost connection among them, is rethrown exactly as the driver reported it.
 */
export function explainPostgresError(error: unknown, hint: MissingTableHint): never {
  const code = sqlState(error);
  const createTable =
    `run \`await ${hint.instanceName}.createTable()\` or apply \`createTableSql()\` ` +
    `(${hint.className}.createTableSql({ table, schema })) in your migrations`;
  if (code === '3F000') {
    const schema = hint.schema === undefined ? 'The schema' : `Schema ${JSON.stringify(hint.schema)}`;
    throw new Error(
      `${schema} of table ${hint.tableDisplay} does not exist (PostgreSQL 3F000: ${(error as Error).message}). ` +
        `createTable() creates the table, not its schema: run \`CREATE SCHEMA ${quotedSchema(hint)}\` ` +
        `(or name an existing schema in the options), then ${createTable}.`,
      { cause: error },
    );
  }
  if (code === '42P01') {
    // PostgreSQL answers 42P01 for a statement on a table of a missing schema too, naming only the relation.
    const orSchema =
      hint.schema === undefined
        ? ''
        : ` If schema ${JSON.stringify(hint.schema)} does not exist either, run \`CREATE SCHEMA ${quotedSchema(hint)}\` ` +
          'first: createTable() creates the table, not its schema.';
    throw new Error(
      `Table ${hint.tableDisplay} does not exist (PostgreSQL 42P01: ${(error as Error).message}). ` +
        `Create it: ${createTable}.${orSchema} Nothing is created behind your back on a first write.`,
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

/** The schema as a `CREATE SCHEMA` takes it: double-quoted, as every statement of this folder quotes it. */
function quotedSchema(hint: MissingTableHint): string {
  return `"${hint.schema ?? '<schema>'}"`;
}
