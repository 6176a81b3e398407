import { describeValue } from '../describe-value.js';

/**
 * The `waitForStandbys` option of `PostgresLeaseStrategy`, `PostgresCheckpointStorage` and
 * `PostgresDualAnchorCheckpointStore`: `'auto'` (the default) waits for one standby while the primary streams to any
 * (and for the synchronous ones `synchronous_standby_names` asks for), a whole number ≥ 1 waits for that many,
 * `false` never waits (unsafe across failovers). ADR 0806.
 */
export type WaitForStandbysOption = 'auto' | false | number;

/** How a PostgreSQL store's conditional writes wait for the standbys (ADR 0806). */
export interface WaitForStandbysOptions {
  /**
   * After a conditional write (`notOlderThan`, `ifAbsent`, `advanceWriteVersion`; a dual-anchor store's fenced writes
   * and resets), wait until standbys have written it; one they did not confirm in time rejects with
   * `CheckpointWriteNotReplicatedError`: it may or may not survive a failover. `'auto'` (the default) waits for one
   * standby while the primary streams to any (and for the synchronous ones `synchronous_standby_names` asks for), at
   * no cost in round trips on a primary without standbys; a number waits for that many; `false` never waits (unsafe
   * across failovers). `any()` and deletes never wait. Needs `pg_read_all_stats` (e.g. `pg_monitor`) where standbys
   * stream. Inside your transaction (`withinTransaction`) the commit is yours: call the bound store's
   * `waitForStandbys()` after it. doc/postgres.md, "Replication and failover".
   */
  readonly waitForStandbys?: WaitForStandbysOption;
  /** How long a write waits for the standbys; 500 ms by default. */
  readonly waitForStandbysTimeoutMs?: number;
}

/** The wait a class was configured with, once resolved; `undefined` stands for `false`. */
export interface WaitForStandbys {
  /** A whole number of standbys, or `'auto'`: one while a standby streams, none while none does. */
  readonly standbys: number | 'auto';
  /** How long a grant or a write waits for them before it counts as not replicated. */
  readonly timeoutMs: number;
}

/**
 * `option` and `timeoutMs` checked and resolved; `undefined` for `false`. A missing option means `'auto'`, a missing
 * timeout `defaultTimeoutMs`.
 * @throws RangeError naming `owner` for anything else, or for a count or timeout that is not a whole number ≥ 1.
 */
export function resolveWaitForStandbys(
  option: WaitForStandbysOption | undefined,
  timeoutMs: number | undefined,
  defaultTimeoutMs: number,
  owner: string,
): WaitForStandbys | undefined {
  // Read as unknown: a caller without types can pass anything here (true, '1', null).
  const given: unknown = option ?? 'auto';
  if (given !== 'auto' && given !== false && !(Number.isSafeInteger(given) && (given as number) >= 1)) {
    throw new RangeError(
      `${owner}: waitForStandbys must be 'auto', false or a whole number of standbys ≥ 1; got ${describeValue(option)}.`,
    );
  }
  const timeout: unknown = timeoutMs ?? defaultTimeoutMs;
  if (timeoutMs !== undefined && !(Number.isSafeInteger(timeout) && (timeout as number) >= 1)) {
    throw new RangeError(
      `${owner}: waitForStandbysTimeoutMs must be a whole number of milliseconds ≥ 1; got ${describeValue(timeoutMs)}.`,
    );
  }
  return given === false
    ? undefined
    : Object.freeze({ standbys: given as number | 'auto', timeoutMs: timeout as number });
}

/**
 * The wait a checkpoint or dual-anchor store's `options` ask for (500 ms unless told), as {@link resolveWaitForStandbys}.
 * @throws RangeError naming `owner`.
 */
export function storeWaitForStandbys(options: WaitForStandbysOptions, owner: string): WaitForStandbys | undefined {
  return resolveWaitForStandbys(options.waitForStandbys, options.waitForStandbysTimeoutMs, 500, owner);
}
