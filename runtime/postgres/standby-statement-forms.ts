/**
 * How a write statement goes out under `waitForStandbys` (ADRs 0806, 0807):
 * - `unchecked`: as written (`waitForStandbys: false`, inside the caller's transaction, and a write nothing waits for
 *   while no standby is expected);
 * - `local`: with `synchronous_commit = local` for its own transaction, so a synchronous standby that lags never
 *   holds it in `SyncRep`; the library waits for the standbys itself, for as long as its timeout;
 * - `guarded`: it fails before writing anything when a walsender that replays (or that the role cannot see) streams,
 *   or `synchronous_standby_names` is set: sent while no standby is expected, so that a primary without standbys
 *   needs no second statement to know it, and a standby that attached is noticed by the very write it must hold.
 */
export type StatementForm = 'unchecked' | 'local' | 'guarded';

/** One statement in each {@link StatementForm}. */
export type StatementInEachForm = Readonly<Record<StatementForm, string>>;

/** The statement `build` makes for each form. */
export function inEachForm(build: (form: StatementForm) => string): StatementInEachForm {
  return { unchecked: build('unchecked'), local: build('local'), guarded: build('guarded') };
}

/**
 * A walsender the guard stops for: one that replays WAL (a standby, or a logical subscriber, which the poll then
 * tells apart) or whose columns the role cannot see. `pg_receivewal` and `pg_basebackup` stream WAL but replay none.
 * One sub-select on the function itself: a join with the replication slots to leave logical walsenders out tripled
 * the guard's cost on a primary without any walsender (ADR 0807).
 */
export const guardTrips =
  'EXISTS (SELECT FROM pg_stat_get_wal_senders() AS w WHERE w.state IS NULL OR w.replay_lsn IS NOT NULL) ' +
  "OR current_setting('synchronous_standby_names') <> ''";

/** What the guard sets `synchronous_commit` to instead, so that the statement fails (22023) before it writes. */
const guardMark = 'checkpoint-fencing: standbys stream';

const checks: Readonly<Record<Exclude<StatementForm, 'unchecked'>, string>> = {
  local: "set_config('synchronous_commit', 'local', true)",
  guarded: `set_config('synchronous_commit', CASE WHEN ${guardTrips} THEN '${guardMark}' ELSE 'local' END, true)`,
};

/** The rows an `INSERT` in `form` inserts: `VALUES (values)`, or `SELECT values WHERE <the check>`. */
export function rowsFrom(form: StatementForm, values: string): string {
  return form === 'unchecked' ? `VALUES (${values})` : `SELECT ${values} WHERE ${checks[form]} IS NOT NULL`;
}

/**
 * `' AND <the check>'`, for the `WHERE` of an `UPDATE` or `DELETE` in a checked form (evaluated for every row it
 * changes); `''` for `unchecked`.
 */
export function andStandbyCheck(form: StatementForm): string {
  return form === 'unchecked' ? '' : ` AND ${checks[form]} IS NOT NULL`;
}

/** Whether a `guarded` statement failed because its guard stopped it: nothing was written. */
export function trippedGuard(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === '22023' && typeof message === 'string' && message.includes(guardMark);
}

/** The walsenders of physical replication: a walsender holding a logical slot feeds a subscriber, never a standby. */
export const physicalWalSenders =
  'pg_stat_get_wal_senders() AS w WHERE NOT EXISTS ' +
  "(SELECT FROM pg_get_replication_slots() AS s WHERE s.active_pid = w.pid AND s.slot_type = 'logical')";

/**
 * A standby that could be promoted: it replays WAL, and is not a base backup. All columns but `pid` read NULL to a
 * role without `pg_read_all_stats`.
 */
export const promotable = "w.state <> 'backup' AND w.replay_lsn IS NOT NULL";
