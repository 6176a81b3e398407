import type pg from 'pg';
import type { PostgresServerProcess } from '../../test/support/postgres/index.js';
import type { ServerFault, ServerFaultKind } from './fault-injector.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The PostgreSQL faults: a crash-like `pg_ctl restart -m immediate` (WAL replay on start; every acknowledged commit
 * must survive it), `pg_terminate_backend` on every client backend but the admin's, and the checkpoint and lease rows
 * held locked for two lease times, longer than the clients' statement timeout, so calls time out.
 */
export function postgresServerFaults(options: {
  readonly server: PostgresServerProcess;
  readonly admin: pg.Pool;
  readonly checkpointTable: string;
  readonly leaseTable: string;
  readonly leaseMs: number;
}): ReadonlyMap<ServerFaultKind, ServerFault> {
  const { server, admin, leaseMs } = options;
  const restart: ServerFault = async () => {
    await server.restart('immediate');
    return true;
  };
  const terminate: ServerFault = async () => {
    const { rows } = await admin.query<{ terminated: boolean }>(
      `SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity
       WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND datname = current_database()`,
    );
    return rows.some(({ terminated }) => terminated);
  };
  const rowLock: ServerFault = async () => {
    const client = await admin.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT 1 FROM "${options.checkpointTable}" FOR UPDATE`);
      await client.query(`SELECT 1 FROM "${options.leaseTable}" FOR UPDATE`);
      await sleep(2 * leaseMs);
      await client.query('ROLLBACK');
      return true;
    } catch {
      return false;
    } finally {
      client.release();
    }
  };
  return new Map([
    ['pg-restart', restart],
    ['pg-terminate', terminate],
    ['pg-row-lock', rowLock],
  ]);
}
