import { describeValue } from '../describe-value.js';
import { assertLeasedSubscriptionId } from '../subscription-id.js';

/** The two keys of one subscription's lease in Redis. */
export interface RedisLeaseKeys {
  /** Holds `"<token> <owner>"` with a `PX` expiry; deleting it by hand frees the lease and nothing else. */
  readonly lease: string;
  /** The last token minted, no TTL, never deleted by this package; deleting it would restart tokens at 0. */
  readonly token: string;
}

/** The default prefix of lease and token keys. */
export const defaultRedisLeaseKeyPrefix = 'checkpoint-fencing:lease:';

/**
 * `prefix + "{" + id + "}:lease"` and `...:token`, with `%`, `{` and `}` in the id percent-encoded. The braces are a
 * Cluster hash tag around a non-empty, brace-free text, so both keys always land in one slot and one script may
 * touch both; the encoding keeps two ids from ever sharing keys.
 * @throws TypeError for an id no lease can be taken on (see the strategy's `register`).
 */
export function redisLeaseKeys(keyPrefix: string, subscriptionId: string): RedisLeaseKeys {
  assertLeasedSubscriptionId(subscriptionId);
  const tag = subscriptionId.replace(
    /[%{}]/gu,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  const base = `${keyPrefix}{${tag}}`;
  return { lease: `${base}:lease`, token: `${base}:token` };
}

/** Throws `TypeError` unless `keyPrefix` is a string without braces, which would move the Cluster hash tag. */
export function assertRedisLeaseKeyPrefix(keyPrefix: unknown): asserts keyPrefix is string {
  if (typeof keyPrefix !== 'string' || /[{}]/u.test(keyPrefix)) {
    throw new TypeError(
      `keyPrefix must be a string without "{" or "}", got ${describeValue(keyPrefix)}: a brace in the prefix would change ` +
        'the Cluster hash tag and could put a lease and its token counter in different slots. Drop the braces.',
    );
  }
}
