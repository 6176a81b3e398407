import type pg from 'pg';
import { expect } from 'vitest';

/** A conformance kit's factory and teardown for cases that each run inside one `BEGIN … COMMIT`. */
export interface InsideTransactions<Bound extends object> {
  readonly create: () => Promise<Bound>;
  /** Takes whatever `create` returned, typed as the kit's contract. */
  readonly teardown: (bound: object) => Promise<void>;
}

/**
 * `create` takes a connection from `pool()`, runs `BEGIN` and returns `bind(client)`, the object under test bound to
 * that transaction; `teardown` commits and releases it. COMMIT, not ROLLBACK: a statement that failed inside the case
 * aborted the transaction, PostgreSQL then answers COMMIT with ROLLBACK, and the case fails.
 */
export function insideTransactions<Bound extends object>(
  pool: () => pg.Pool,
  bind: (client: pg.PoolClient) => Bound | Promise<Bound>,
): InsideTransactions<Bound> {
  const transactions = new Map<object, pg.PoolClient>();
  return {
    create: async () => {
      const client = await pool().connect();
      await client.query('BEGIN');
      const bound = await bind(client);
      transactions.set(bound, client);
      return bound;
    },
    teardown: async (bound) => {
      const client = transactions.get(bound);
      transactions.delete(bound);
      try {
        const { command } = await (client?.query('COMMIT') ?? Promise.reject(new Error('no transaction client')));
        expect(command).toBe('COMMIT');
      } finally {
        client?.release();
      }
    },
  };
}
