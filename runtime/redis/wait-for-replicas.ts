import { describeValue } from '../describe-value.js';

/**
 * How a write waits for replicas with `WAIT` before it counts as made: for how many replicas, and for how long.
 * `WAIT` blocks the connection it is sent on, and every command queued behind it there, for up to `timeoutMs`.
 */
export interface WaitForReplicas {
  /**
   * A whole number of replicas (at least 1), or `'auto'`: every replica that could be promoted in the master's place,
   * as `INFO replication` lists them right after the write, and as the topology knows them (the Sentinels' lists, a
   * Cluster's node table, the most the master listed under its replication ID); none on a server that has had no
   * replica (ADRs 1102, 1104–1106).
   */
  readonly replicas: number | 'auto';
  /** How long `WAIT` may block, in milliseconds; at least 1 (`WAIT` with 0 blocks for ever). */
  readonly timeoutMs: number;
}

/**
 * The `waitForReplicas` option of `RedisLeaseStrategy` and `RedisCheckpointStorage`: `'auto'` (the default), an
 * explicit {@link WaitForReplicas}, or `false` to send no `WAIT` at all.
 */
export type WaitForReplicasOption = 'auto' | false | WaitForReplicas;

/**
 * The wait `option` asks for, with `'auto'` (and a missing option) read as `{ replicas: 'auto', timeoutMs:
 * defaultTimeoutMs }`; `undefined` for `false`.
 * @throws RangeError naming `owner` for anything else, or for a count or timeout that is not a whole number ≥ 1.
 */
export function resolveWaitForReplicas(
  option: WaitForReplicasOption | undefined,
  defaultTimeoutMs: number,
  owner: string,
): WaitForReplicas | undefined {
  if (option === false) {
    return undefined;
  }
  if (option === undefined || option === 'auto') {
    return Object.freeze({ replicas: 'auto', timeoutMs: defaultTimeoutMs });
  }
  // Read as unknown: a caller without types can pass anything here (true, 1, null).
  const given: unknown = option;
  const { replicas, timeoutMs } = (
    typeof given === 'object' && given !== null ? given : {}
  ) as Partial<WaitForReplicas>;
  if (
    (replicas !== 'auto' && !(Number.isSafeInteger(replicas) && (replicas as number) >= 1)) ||
    !Number.isSafeInteger(timeoutMs) ||
    (timeoutMs as number) < 1
  ) {
    throw new RangeError(
      `${owner}: waitForReplicas must be 'auto', false, or { replicas, timeoutMs } with replicas 'auto' or a whole number ≥ 1 and ` +
        `a timeoutMs ≥ 1 (WAIT with timeout 0 blocks for ever); got ${describeValue(option)}. Use false to send no WAIT.`,
    );
  }
  return Object.freeze({ replicas: replicas as number | 'auto', timeoutMs: timeoutMs as number });
}
