import { describeValue } from '../describe-value.js';

/**
 * The `waitForStandbys` option of `PostgresLeaseStrategy`, `PostgresCheckpointStorage` and
 * `PostgresDualAnchorCheckpointStore`: `'auto'` (the default) waits for one standby while the primary streams to any
 * (and for the synchronous ones `synchronous_standby_names` asks for), a whole number ≥ 1 waits for that many,
 * `false` never waits (unsafe across failovers). ADR 0806.
 */
export type WaitForStandbysOption = 'auto' | false | number;

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
