import pg from 'pg';
import { PostgresRelay } from './postgres-relay.js';
import {
  startPostgresServer,
  startPostgresStandby,
  type PostgresConnectionDetails,
  type PostgresServerProcess,
} from './start-postgres-server.js';

/** A primary and one streaming standby, each a throwaway server of its own; see {@link startReplicatedPostgres}. */
export interface ReplicatedPostgres {
  /** The server that takes writes now; another one after each {@link failOver}. */
  readonly primary: PostgresServerProcess;
  /** Its standby, streaming through {@link link}; after a {@link failOver}, none until {@link recover}. */
  readonly standby: PostgresServerProcess | undefined;
  /** The address clients connect to: a relay aimed at the primary, re-aimed by each failover. */
  readonly service: PostgresConnectionDetails;
  /** The standby's replication connection: {@link PostgresRelay.hold} it to hold the standby back. */
  readonly link: PostgresRelay;
  /** The standby's `application_name`: what `synchronous_standby_names` names it by. */
  readonly standbyName: string;
  /**
   * Resolves once the standby streams and has flushed everything the primary flushed when this was called; ends a
   * held link first.
   */
  waitUntilCaughtUp(): Promise<void>;
  /**
   * SIGKILLs the primary, closes the link (whatever a held link still carried is lost), runs `onKilled` with when the
   * primary was killed (the standby's data is frozen there: its primary is dead and nothing promotes it before
   * `onKilled` resolves), promotes the
   * standby and aims {@link service} at it; resolves once it takes writes. The old primary is removed; {@link recover}
   * makes a standby.
   */
  failOver(onKilled?: (standby: PostgresServerProcess, killedAt: bigint) => Promise<void>): Promise<void>;
  /** A new standby of the primary from a base backup, streaming through {@link link}, caught up when this resolves. */
  recover(): Promise<void>;
  /** Runs one statement on the primary itself (not through the relay). */
  administer(statement: string): Promise<pg.QueryResult>;
  /** Stops everything; idempotent. */
  stop(): Promise<void>;
}

/** Options of {@link startReplicatedPostgres}. */
export interface StartReplicatedPostgresOptions {
  /** Settings of the primary, e.g. `synchronous_standby_names`. */
  readonly settings?: Readonly<Record<string, string>>;
}

const standbyName = 'standby1';

/**
 * Starts a primary and a standby made from it with `pg_basebackup`, streaming asynchronously (PostgreSQL's default)
 * through a relay the test can hold, and a second relay as the address clients use. Resolves once the standby
 * streams. Every server is stopped and removed when the process exits, as with `startPostgresServer`.
 */
export async function startReplicatedPostgres(
  options: StartReplicatedPostgresOptions = {},
): Promise<ReplicatedPostgres> {
  const primary = await startPostgresServer(options.settings === undefined ? {} : { settings: options.settings });
  try {
    const link = await PostgresRelay.open(primary.port);
    const service = await PostgresRelay.open(primary.port);
    const topology = new PostgresTopology(primary, link, service);
    await topology.recover();
    return topology;
  } catch (error) {
    await primary.stop();
    throw error;
  }
}

class PostgresTopology implements ReplicatedPostgres {
  readonly standbyName = standbyName;
  #standby: PostgresServerProcess | undefined;

  constructor(
    private current: PostgresServerProcess,
    readonly link: PostgresRelay,
    private readonly serviceRelay: PostgresRelay,
  ) {}

  get primary(): PostgresServerProcess {
    return this.current;
  }

  get standby(): PostgresServerProcess | undefined {
    return this.#standby;
  }

  get service(): PostgresConnectionDetails {
    const { host, port } = this.serviceRelay;
    return {
      host,
      port,
      user: 'postgres',
      database: 'postgres',
      connectionString: `postgresql://postgres@${host}:${port}/postgres`,
    };
  }

  async waitUntilCaughtUp(): Promise<void> {
    if (this.link.held) {
      this.link.release();
    }
    const { rows } = await this.administer('SELECT pg_current_wal_flush_lsn()::text AS lsn');
    const lsn = String((rows[0] as { lsn?: unknown } | undefined)?.lsn);
    await until(`${standbyName} streams and has flushed ${lsn}`, async () => {
      const { rowCount } = await this.administer(
        `SELECT FROM pg_stat_replication WHERE application_name = '${standbyName}' AND state = 'streaming' ` +
          `AND flush_lsn >= '${lsn}'::pg_lsn AND replay_lsn IS NOT NULL`,
      );
      return rowCount === 1;
    });
  }

  async failOver(onKilled?: (standby: PostgresServerProcess, killedAt: bigint) => Promise<void>): Promise<void> {
    const standby = this.#standby;
    if (standby === undefined) {
      throw new Error('failOver(): there is no standby to promote; call recover() first.');
    }
    const old = this.current;
    const killedAt = await old.kill();
    // The WAL the held link still carried dies with the primary; the standby has what it had.
    this.link.release();
    await onKilled?.(standby, killedAt);
    await standby.promote();
    this.current = standby;
    this.#standby = undefined;
    this.serviceRelay.aimAt(standby.port);
    this.link.aimAt(standby.port);
    await old.stop();
  }

  async recover(): Promise<void> {
    await this.#standby?.stop();
    this.#standby = await startPostgresStandby(this.current, {
      name: standbyName,
      upstreamPort: this.link.port,
      // A link closed by the relay is streamed again a tenth of a second later, not the default five seconds.
      settings: { wal_retrieve_retry_interval: '100ms' },
    });
    await this.waitUntilCaughtUp();
  }

  async administer(statement: string): Promise<pg.QueryResult> {
    const client = new pg.Client({ connectionString: this.current.connectionString });
    await client.connect();
    try {
      return await client.query(statement);
    } finally {
      await client.end();
    }
  }

  async stop(): Promise<void> {
    await Promise.all([this.link.close(), this.serviceRelay.close()]);
    await Promise.all([this.#standby?.stop(), this.current.stop()]);
  }
}

/** Polls `check` every 20 ms until it answers true; rejects naming `what` after 30 s. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after 30 s waiting until ${what}.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
