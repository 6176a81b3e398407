import { describeValue, quoteText } from '../describe-value.js';
import { membershipView, ownedFromText, type MembershipStore } from '../partitions/membership-store.js';
import { StoredMembership, type MembershipOptions } from '../partitions/stored-membership.js';
import { hashTaggedKey } from './redis-lease-keys.js';
import { heartbeatScript, joinMemberScript, leaveScript } from './redis-membership-scripts.js';

/** The client a `RedisMembership` works over: an ioredis `Redis` (standalone, or through Sentinel) or `Cluster`. */
export interface RedisMembershipClient {
  eval(script: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
}

/** Options of {@link RedisMembership}. */
export interface RedisMembershipOptions extends MembershipOptions {
  /** Prefix of the membership keys, without braces; {@link defaultRedisMembershipKeyPrefix} by default. */
  readonly keyPrefix?: string;
}

/** The prefix of `RedisMembership`'s keys unless `keyPrefix` says otherwise. */
export const defaultRedisMembershipKeyPrefix = 'checkpoint-fencing:members:';

/** The keys of one partitioned subscription's membership: its members hash and its recorded partition count. */
export interface RedisMembershipKeys {
  readonly members: string;
  readonly partitions: string;
}

/** The keys `RedisMembership` keeps `subscription`'s members and partition count under, sharing one hash tag. */
export function redisMembershipKeys(keyPrefix: string, subscription: string): RedisMembershipKeys {
  const base = hashTaggedKey(keyPrefix, subscription);
  return { members: `${base}:members`, partitions: `${base}:partitions` };
}

/** A member as the members hash records it: times in milliseconds by the server's clock, and the partitions it owns. */
export interface RedisMemberValue {
  readonly expiresAtMs: number;
  readonly joinedAtMs: number;
  readonly owned: readonly number[];
}

/** Reads a value of the members hash, `"<expires at> <joined at> <instance> <owned>"`; `undefined` for any other. */
export function parseRedisMemberValue(value: string): RedisMemberValue | undefined {
  const parts = /^([0-9]+) ([0-9]+) \S+ ((?:[0-9]+(?:,[0-9]+)*)?)$/u.exec(value);
  return parts === null
    ? undefined
    : { expiresAtMs: Number(parts[1]), joinedAtMs: Number(parts[2]), owned: ownedFromText(parts[3]) };
}

/**
 * The members of each partitioned subscription in Redis: a hash `<prefix>{<subscription>}:members` and the recorded
 * partition count `<prefix>{<subscription>}:partitions`, under one Cluster hash tag; every step is one script judged
 * on the server's clock (`TIME`). The caller owns the client and closes it.
 */
export class RedisMembership extends StoredMembership {
  /** @throws TypeError for a client without `eval` or a key prefix with braces; RangeError for a bad member time. */
  constructor(client: RedisMembershipClient, options: RedisMembershipOptions = {}) {
    const { keyPrefix = defaultRedisMembershipKeyPrefix } = options;
    if (typeof (client as Partial<RedisMembershipClient> | null)?.eval !== 'function' || /[{}]/u.test(keyPrefix)) {
      throw new TypeError(
        'RedisMembership needs an ioredis client and a keyPrefix without "{" or "}" (the hash tag follows it), got ' +
          `${describeValue(client)} and ${describeValue(keyPrefix)}.`,
      );
    }
    super(redisMembershipStore(client, keyPrefix), options);
  }
}

function redisMembershipStore(client: RedisMembershipClient, keyPrefix: string): MembershipStore {
  const script = async (source: string, subscription: string, ...args: string[]): Promise<[string, unknown[]]> => {
    const keys = redisMembershipKeys(keyPrefix, subscription);
    const reply = await client.eval(source, 2, keys.members, keys.partitions, ...args);
    return [hashTaggedKey(keyPrefix, subscription), Array.isArray(reply) ? (reply as unknown[]) : []];
  };
  return {
    join: async ({ subscription, nodeId, instance }, partitions, memberTimeMs) => {
      const [base, [outcome, value]] = await script(
        joinMemberScript,
        subscription,
        nodeId,
        instance,
        String(partitions),
        String(memberTimeMs),
      );
      if (outcome === 'joined') {
        return { joined: true };
      }
      if (outcome === 'partitions' || outcome === 'live') {
        return outcome === 'live'
          ? { joined: false, expiresInMs: Number(value) }
          : { joined: false, storedPartitions: Number(value) };
      }
      throw unexpectedReply([outcome, value], base);
    },
    heartbeat: async ({ subscription, nodeId, instance }, owned, memberTimeMs) => {
      const [base, reply] = await script(
        heartbeatScript,
        subscription,
        nodeId,
        instance,
        String(memberTimeMs),
        owned.join(','),
      );
      if (reply.length % 3 !== 1) {
        throw unexpectedReply(reply, base);
      }
      const members = [];
      for (let index = 1; index < reply.length; index += 3) {
        members.push({
          nodeId: String(reply[index]),
          memberForMs: Number(reply[index + 1]),
          owned: ownedFromText(reply[index + 2]),
        });
      }
      return membershipView(reply[0] === 1, members);
    },
    leave: async ({ subscription, nodeId, instance }) => {
      await script(leaveScript, subscription, nodeId, instance);
    },
  };
}

function unexpectedReply(reply: unknown, base: string): Error {
  return new Error(
    `Unexpected reply from the membership script for ${quoteText(base)}: ${describeValue(reply)}. Its :members and ` +
      ':partitions keys must hold only what RedisMembership writes.',
  );
}
