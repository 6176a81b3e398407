import type { PostgresQueryResult } from './postgres-client.js';
import { guardTrips, physicalWalSenders, promotable } from './standby-statement-forms.js';
import type { WaitForStandbys } from './wait-for-standbys.js';

/**
 * The error for a primary whose walsenders `role` cannot see: waiting for standbys it cannot count would be silently
 * unsafe, so no grant is kept and no conditional write confirmed until the role can, or the wait is turned off.
 */
export function standbysHiddenError(role: string | undefined): Error {
  const who = role === undefined ? 'this role' : `role ${JSON.stringify(role)}`;
  return new Error(
    `The primary streams WAL to walsenders whose positions ${who} cannot see: pg_stat_replication shows them only to ` +
      'roles with pg_read_all_stats, so waitForStandbys cannot tell whether a standby holds a grant or a write. Grant it ' +
      `(GRANT pg_monitor TO ${role === undefined ? '<role>' : quoteRole(role)}; pg_monitor includes pg_read_all_stats), ` +
      'or set waitForStandbys: false to write without waiting for the standbys (unsafe across failovers: a promoted ' +
      'standby may lack a grant or a write). doc/postgres.md, "Replication and failover".',
  );
}

function quoteRole(role: string): string {
  return /^[a-z_][a-z0-9_]*$/u.test(role) ? role : `"${role.replaceAll('"', '""')}"`;
}

/**
 * One poll. It reads the primary's flush position (the target), then waits on the server, a millisecond at a time
 * for at most $1 milliseconds, until $2 standbys that could be promoted have written that far ($3 true: or none
 * streams, for `'auto'`) and $4 of them are synchronous ones; then it reads where every standby is, whether some
 * walsender is hidden from the role, whether the guard would stop a statement now, and `synchronous_standby_names`.
 * The target is read after the commits it answers for: with `synchronous_commit = local` (or `on`) a commit is
 * flushed before it is acknowledged, and standbys reach exactly the flush position (a record's end, never inside a
 * page header). Written, not flushed, as `synchronous_commit = remote_write` and Redis's `WAIT` count: a promoted
 * standby replays what it wrote; waiting for its fsync too made each wait several times as long on a loaded machine.
 * The walsenders are read in the target list of a sub-select on the iteration, so that each iteration calls the
 * function again instead of rescanning its first answer (ADR 0806).
 */
const pollStatement =
  'WITH RECURSIVE polls (n, target) AS (SELECT 0, pg_current_wal_flush_lsn() UNION ALL ' +
  'SELECT polls.n + 1, polls.target FROM polls, LATERAL (SELECT count(*) AS standbys, ' +
  'count(*) FILTER (WHERE (x.s).write_lsn >= polls.target) AS reached, ' +
  "count(*) FILTER (WHERE (x.s).write_lsn >= polls.target AND (x.s).sync_state IN ('sync', 'quorum')) AS synchronous " +
  "FROM (SELECT pg_stat_get_wal_senders() AS s, polls.n) AS x WHERE (x.s).state <> 'backup' " +
  'AND (x.s).replay_lsn IS NOT NULL AND NOT EXISTS (SELECT FROM pg_get_replication_slots() AS l ' +
  "WHERE l.active_pid = (x.s).pid AND l.slot_type = 'logical')) AS now " +
  'WHERE polls.n < $1::integer AND CASE WHEN (now.reached >= $2::integer OR ($3::boolean AND now.standbys = 0)) ' +
  'AND now.synchronous >= $4::integer THEN false ELSE pg_sleep(0.001) IS NOT NULL END) ' +
  "SELECT done.target::text AS lsn, done.n AS waited, current_setting('synchronous_standby_names') AS names, " +
  `(${guardTrips}) AS trips, now.* FROM (SELECT n, target FROM polls ORDER BY n DESC LIMIT 1) AS done, ` +
  'LATERAL (SELECT bool_or(w.state IS NULL) AS hidden, current_user::text AS role, ' +
  `array_agg(w.write_lsn::text) FILTER (WHERE ${promotable}) AS written, ` +
  `array_agg(w.write_lsn::text) FILTER (WHERE ${promotable} AND w.sync_state IN ('sync', 'quorum')) AS synchronous ` +
  `FROM ${physicalWalSenders} AND done.target IS NOT NULL) AS now`;

/** How long one poll waits on the server, at most: waits that arrive meanwhile are polled for after it. */
const pollWaitMs = 20;

/** What one poll read. */
interface Poll {
  readonly lsn: bigint;
  /** Whether it waited on the server for the standbys. */
  readonly waited: boolean;
  /** How many synchronous standbys `synchronous_standby_names` asks for; 0 when it is empty. */
  readonly synchronousRequired: number;
  readonly written: readonly bigint[];
  readonly synchronous: readonly bigint[];
}

/** Why a wait fell short: how many standbys confirmed (unknown before the first poll) of how many it waited for. */
export interface StandbyShortfall {
  readonly acknowledged: number | undefined;
  readonly required: number;
  /** The poll's failure, when it failed (a lost connection, standbys hidden from the role). */
  readonly cause?: unknown;
}

interface Waiter {
  readonly wait: WaitForStandbys;
  /** The primary's flush position read by the first poll sent after the write was acknowledged. */
  target: bigint | undefined;
  acknowledged: number | undefined;
  required: number;
  readonly settle: (shortfall: StandbyShortfall | undefined) => void;
}

/** Sends one statement. */
export type PollSender = (text: string, values: readonly unknown[]) => Promise<PostgresQueryResult>;

/** How long to wait before polling again after a poll that did not wait on the server and settled nothing. */
const pollIntervalMs = 1;

const confirmationsByClient = new WeakMap<object, StandbyConfirmations>();

/**
 * The waits for standbys of everything over one client (a pool, a `pg.Client`): one poll at a time, shared by every
 * write waiting, the way one Redis `WAIT` answers for every write before it. A write's target is the flush position
 * the first poll sent after its commit reads; that poll waits on the server until enough standbys wrote that far, and
 * the write is confirmed then, or short once its timeout passes, whether a poll is answering or not.
 */
export class StandbyConfirmations {
  /**
   * Whether the last statement or poll saw standbys: `'auto'` then sends `local` statements and waits, else `guarded`
   * ones. Starts false: a guard that trips costs one statement more, once.
   */
  expectsStandbys = false;
  /** `synchronous_standby_names`'s count as the last poll read it, for the next poll to wait for. */
  #synchronousRequired = 0;
  #unpolled: Waiter[] = [];
  #polled: Waiter[] = [];
  #polling = false;

  private constructor(private readonly send: PollSender) {}

  /** The confirmations of `client`, made at first use with `send` (any runner of that client). */
  static of(client: object, send: PollSender): StandbyConfirmations {
    let confirmations = confirmationsByClient.get(client);
    if (confirmations === undefined) {
      confirmations = new StandbyConfirmations(send);
      confirmationsByClient.set(client, confirmations);
    }
    return confirmations;
  }

  /**
   * Resolves once the standbys `wait` asks for have written every commit acknowledged before the call, to `undefined`;
   * or, once `wait.timeoutMs` passed or a poll failed, to the shortfall. Never rejects.
   */
  confirm(wait: WaitForStandbys): Promise<StandbyShortfall | undefined> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        wait,
        target: undefined,
        acknowledged: undefined,
        required: wait.standbys === 'auto' ? 1 : wait.standbys,
        settle: (shortfall) => {
          clearTimeout(timer);
          this.#unpolled = this.#unpolled.filter((other) => other !== waiter);
          this.#polled = this.#polled.filter((other) => other !== waiter);
          resolve(shortfall);
        },
      };
      const timer = setTimeout(() => {
        waiter.settle({ acknowledged: waiter.acknowledged, required: waiter.required });
      }, wait.timeoutMs);
      this.#unpolled.push(waiter);
      if (!this.#polling) {
        // After the I/O of this turn of the event loop: every write acknowledged in it shares the poll.
        this.#polling = true;
        setImmediate(() => void this.#poll());
      }
    });
  }

  async #poll(): Promise<void> {
    // Only waiters whose commit came before this poll was sent take its position as their target.
    const targeted = this.#unpolled.splice(0);
    const waiting = [...this.#polled, ...targeted].map(({ wait }) => wait.standbys);
    let poll: Poll;
    try {
      poll = this.#read(
        await this.send(pollStatement, [
          pollWaitMs,
          Math.max(...waiting.map((standbys) => (standbys === 'auto' ? 1 : standbys))),
          waiting.every((standbys) => standbys === 'auto'),
          this.#synchronousRequired,
        ]),
      );
    } catch (cause) {
      for (const waiter of [...this.#polled, ...targeted]) {
        waiter.settle({ acknowledged: waiter.acknowledged, required: waiter.required, cause });
      }
      this.#next();
      return;
    }
    for (const waiter of targeted) {
      waiter.target = poll.lsn;
    }
    this.#polled.push(...targeted);
    const before = this.#polled.length;
    for (const waiter of [...this.#polled]) {
      this.#judge(waiter, poll);
    }
    this.#next(poll.waited || this.#polled.length < before);
  }

  /**
   * Polls again while waiters are left: at once after a poll that waited on the server or settled some, else after
   * {@link pollIntervalMs}, so that a poll that cannot wait (the count of synchronous standbys still unknown) never
   * spins.
   */
  #next(progressed = true): void {
    this.#polling = this.#unpolled.length > 0 || this.#polled.length > 0;
    if (!this.#polling) {
      return;
    }
    if (progressed) {
      void this.#poll();
    } else {
      setTimeout(() => void this.#poll(), pollIntervalMs);
    }
  }

  #judge(waiter: Waiter, poll: Poll): void {
    const target = waiter.target ?? poll.lsn;
    const wanted = waiter.wait.standbys === 'auto' ? Math.min(1, poll.written.length) : waiter.wait.standbys;
    waiter.required = Math.max(wanted, poll.synchronousRequired);
    const reached = (positions: readonly bigint[]): number => positions.filter((lsn) => lsn >= target).length;
    waiter.acknowledged = reached(poll.written);
    if (waiter.acknowledged >= wanted && reached(poll.synchronous) >= poll.synchronousRequired) {
      waiter.settle(undefined);
    }
  }

  /** One poll's row; throws {@link standbysHiddenError} when a walsender is hidden from the role. */
  #read({ rows }: PostgresQueryResult): Poll {
    const row = rows[0] ?? {};
    // Whether the guard would stop the next statement: a logical subscriber replays too, so it can be true with no
    // standby to wait for; the statements then go out `local`, and each poll finds nothing to wait for.
    this.expectsStandbys = row['trips'] === true;
    if (row['hidden'] === true) {
      throw standbysHiddenError(typeof row['role'] === 'string' ? row['role'] : undefined);
    }
    const positions = (value: unknown): bigint[] =>
      Array.isArray(value) ? value.map((lsn) => (typeof lsn === 'string' ? parseLsn(lsn) : 0n)) : [];
    const poll: Poll = {
      lsn: parseLsn(String(row['lsn'])),
      waited: typeof row['waited'] === 'number' && row['waited'] > 0,
      synchronousRequired: synchronousStandbysRequired(typeof row['names'] === 'string' ? row['names'] : ''),
      written: positions(row['written']),
      synchronous: positions(row['synchronous']),
    };
    this.#synchronousRequired = poll.synchronousRequired;
    return poll;
  }
}

/** A `pg_lsn` as text (`16/B374D848`) as a number. @throws Error for anything else. */
export function parseLsn(text: string): bigint {
  const parts = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/iu.exec(text);
  if (parts === null) {
    throw new Error(`Not a WAL position (pg_lsn): ${JSON.stringify(text)}.`);
  }
  return (BigInt(`0x${parts[1] ?? ''}`) << 32n) + BigInt(`0x${parts[2] ?? ''}`);
}

/**
 * How many synchronous standbys must confirm a commit under `synchronous_standby_names`: the `num_sync` of
 * `FIRST n (…)`, `ANY n (…)` or `n (…)`; 1 for a plain list (`a, b`, `*`); 0 when it is empty.
 */
export function synchronousStandbysRequired(names: string): number {
  if (names.trim() === '') {
    return 0;
  }
  return Number(/^\s*(?:(?:first|any)\s+)?(\d+)\s*\(/iu.exec(names)?.[1] ?? 1);
}
