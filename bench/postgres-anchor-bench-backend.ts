import pg from 'pg';
import { PostgresDualAnchorCheckpointStore } from '../runtime/dual-anchor-entry.js';
import { startPostgresServer } from '../test/support/postgres/index.js';
import type { AnchorBenchBackend } from './anchor-bench-backend.js';

const table = 'bench_dual_anchor_checkpoints';
const poolSize = 16;

/**
 * A PostgreSQL server of its own (as the tests start one: fsync on, default settings) and one `pg.Pool` of 16
 * connections, shared by the store and the plain write. The plain write is a single-column upsert into the store's
 * own table (rows of their own), so both sides write the same row shape and keep their updates HOT alike. Both send
 * unnamed statements, `pool.query(text, values)`, as the store does (ADR 0805): the server parses and plans every
 * write of either side, so neither is flattered by a plan the other lacks.
 */
export async function postgresAnchorBenchBackend(): Promise<AnchorBenchBackend> {
  const server = await startPostgresServer();
  const pool = new pg.Pool({ connectionString: server.connectionString, max: poolSize });
  // Idle connections see the server stop at the end; without a listener that error would end the process.
  pool.on('error', () => undefined);
  const store = new PostgresDualAnchorCheckpointStore(pool, { table });
  await store.createTable();
  const version = (await pool.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version;
  const plainUpsert =
    `INSERT INTO "${table}" (stream_name, last_processed_token) VALUES ($1, $2) ` +
    'ON CONFLICT (stream_name) DO UPDATE SET last_processed_token = EXCLUDED.last_processed_token';
  return {
    description: `PostgreSQL ${version ?? '?'}, one pg.Pool of ${poolSize} connections`,
    store,
    inFlight: poolSize,
    operations: 4_000,
    // The three values the anchor statement sends: the canonical token and two ISO 8601 timestamps.
    plainValueBytes: async (token, timestamp, heartbeatTimestamp) => {
      await store.saveProcessed('bench-size-probe', token, timestamp, heartbeatTimestamp);
      const { rows } = await pool.query<{ bytes: number }>(
        `SELECT octet_length(last_processed_token) AS bytes FROM "${table}" WHERE stream_name = 'bench-size-probe'`,
      );
      await store.delete('bench-size-probe');
      return (
        (rows[0]?.bytes ?? 0) +
        Buffer.byteLength(timestamp.toISOString()) +
        Buffer.byteLength(heartbeatTimestamp.toISOString())
      );
    },
    plainWriteName: 'single-column upsert',
    plainWrite: (key, value) => pool.query(plainUpsert, [key, value]),
    close: async () => {
      await pool.end();
      await server.stop();
    },
  };
}
