import { describeValue } from '../describe-value.js';

/** What one statement answers: the rows, each a column-name-to-value record, and how many rows it touched. */
export interface PostgresQueryResult {
  readonly rows: readonly Record<string, unknown>[];
  readonly rowCount: number | null;
}

/**
 * Anything with node-postgres's `query(text, values)`: a `pg.Pool`, a `pg.Client` or a `PoolClient`, which the caller
 * owns, connects and ends. Typed structurally, so the package imports nothing from `pg` at run time. Every call is
 * one self-contained statement: nothing relies on the same connection answering the next one.
 */
export interface PostgresClient {
  query(text: string, values: readonly unknown[]): Promise<PostgresQueryResult>;
}

/** Where a table lives: `schema` unset means the server's `search_path` decides. */
export interface PostgresTableOptions {
  /** The table name; each class has its own default. A plain identifier, used exactly as given (case-sensitive). */
  readonly table?: string;
  /** The schema; none by default, so the name resolves through the server's `search_path`. */
  readonly schema?: string;
}

/** Throws `TypeError` unless `client` has a `query` method, naming the class it was given to. */
export function assertPostgresClient(className: string, client: unknown): asserts client is PostgresClient {
  if (typeof client !== 'object' || client === null || typeof (client as { query?: unknown }).query !== 'function') {
    throw new TypeError(
      `${className} needs a node-postgres client with query(text, values): a pg.Pool, a pg.Client or a PoolClient, ` +
        `got ${describeValue(client)}.`,
    );
  }
}
