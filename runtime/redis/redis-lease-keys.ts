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
  const base = hashTaggedKey(keyPrefix, subscriptionId);
  return { lease: `${base}:lease`, token: `${base}:token` };
}

/** `prefix + "{" + id + "}"`, with `%`, `{` and `}` in the id percent-encoded: keys that add to it share one slot. */
export function hashTaggedKey(keyPrefix: string, id: string): string {
  return `${keyPrefix}{${id.replace(/[%{}]/gu, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)}}`;
}

/** What a lease or token key of {@link redisLeaseKeys} names: the subscription and which of its two keys it is. */
export interface ParsedRedisLeaseKey {
  readonly subscriptionId: string;
  readonly kind: keyof RedisLeaseKeys;
}

/**
 * The inverse of {@link redisLeaseKeys}: which subscription's lease or token key `key` is, under `keyPrefix`;
 * `undefined` for any other key. Confirmed by building the keys again, so only a key the strategy itself would use
 * is recognised.
 */
export function parseRedisLeaseKey(keyPrefix: string, key: string): ParsedRedisLeaseKey | undefined {
  const kind = key.endsWith('}:lease') ? 'lease' : key.endsWith('}:token') ? 'token' : undefined;
  if (kind === undefined || !key.startsWith(`${keyPrefix}{`)) {
    return undefined;
  }
  const tag = key.slice(keyPrefix.length + 1, -'}:lease'.length);
  const subscriptionId = tag.replace(/%(25|7B|7D)/gu, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
  try {
    return redisLeaseKeys(keyPrefix, subscriptionId)[kind] === key ? { subscriptionId, kind } : undefined;
  } catch {
    // An id no lease can be taken on (empty, or not well-formed UTF-16): no strategy writes such a key.
    return undefined;
  }
}

/** A lease key's value, `"<token> <owner>"`, as the lease scripts write it. */
export interface RedisLeaseValue {
  readonly token: bigint;
  /** `"<subscriberId> <strategy instance uuid>/<registration>"`. */
  readonly owner: string;
}

/** Reads a lease key's value; `undefined` for a value the lease scripts never write. */
export function parseRedisLeaseValue(value: string): RedisLeaseValue | undefined {
  const match = /^(0|[1-9][0-9]*) (.+)$/su.exec(value);
  return match?.[1] === undefined || match[2] === undefined ? undefined : { token: BigInt(match[1]), owner: match[2] };
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
