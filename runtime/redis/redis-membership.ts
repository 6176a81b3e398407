import { describeValue, quoteText } from '../describe-value.js';
import type { LiveMember, MembershipView } from '../partitions/membership.js';
import {
  membershipView,
  ownedFromText,
  type JoinOutcome,
  type MembershipStore,
} from '../partitions/membership-store.js';
import { StoredMembership, type MembershipOptions } from '../partitions/stored-membership.js';
import { hashTaggedKey } from './redis-lease-keys.js';
import { heartbeatScript, joinMemberScript, leaveScript } from './redis-membership-scripts.js';

/** The client a `RedisMembership` works over: an ioredis `Redis` (standalone, or through Sentinel) or `Cluster`. */
export interface RedisMembershipClient {
  eval(script: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
}

/** Options of {@link RedisMembership}. */
export interface RedisMembershipOptions extends MembershipOptions {
  /** Prefix of the membership keys, without braces; `checkpoint-fencing:members:` by default. */
  readonly keyPrefix?: string;
}

/**
 * The members of each partitioned subscription in Redis: one hash `<prefix>{<subscription>}:members` and its
 * recorded partition count `<prefix>{<subscription>}:partitions`, one Cluster hash tag for both, every step one
 * script judged on the server's clock (`TIME`). The caller owns the client and closes it.
 */
export class RedisMembership extends StoredMembership {
  /** @throws TypeError for a client without `eval` or a key prefix with braces; RangeError for a bad member time. */
  constructor(client: RedisMembershipClient, options: RedisMembershipOptions = {}) {
    const keyPrefix = options.keyPrefix ?? 'checkpoint-fencing:members:';
    if (
      typeof (client as Partial<RedisMembershipClient> | null)?.eval !== 'function' ||
      typeof keyPrefix !== 'string' ||
      /[{}]/u.test(keyPrefix)
    ) {
      throw new TypeError(
        `RedisMembership needs an ioredis client and a keyPrefix without "{" or "}" (the hash tag follows it), got ` +
          `${describeValue(client)} and ${describeValue(keyPrefix)}.`,
      );
    }
    super(new RedisMembershipStore(client, keyPrefix), options);
  }
}

class RedisMembershipStore implements MembershipStore {
  constructor(
    readonly client: RedisMembershipClient,
    readonly keyPrefix: string,
  ) {}

  async join(
    subscription: string,
    nodeId: string,
    instance: string,
    partitions: number,
    memberTimeMs: number,
  ): Promise<JoinOutcome> {
    const base = hashTaggedKey(this.keyPrefix, subscription);
    const reply = await this.client.eval(
      joinMemberScript,
      2,
      `${base}:partitions`,
      `${base}:members`,
      nodeId,
      instance,
      String(partitions),
      String(memberTimeMs),
    );
    const [outcome, value] = Array.isArray(reply) ? (reply as unknown[]) : [];
    if (outcome === 'joined') {
      return { joined: true };
    }
    if (outcome === 'partitions' || outcome === 'live') {
      return outcome === 'live'
        ? { joined: false, expiresInMs: Number(value) }
        : { joined: false, storedPartitions: Number(value) };
    }
    throw unexpectedReply(reply, base);
  }

  async heartbeat(
    subscription: string,
    nodeId: string,
    instance: string,
    owned: readonly number[],
    memberTimeMs: number,
  ): Promise<MembershipView> {
    const base = hashTaggedKey(this.keyPrefix, subscription);
    const reply = await this.client.eval(
      heartbeatScript,
      1,
      `${base}:members`,
      nodeId,
      instance,
      String(memberTimeMs),
      owned.join(','),
    );
    if (!Array.isArray(reply) || reply.length % 3 !== 1) {
      throw unexpectedReply(reply, base);
    }
    const members: LiveMember[] = [];
    for (let index = 1; index < reply.length; index += 3) {
      const [id, memberForMs, list] = reply.slice(index, index + 3) as unknown[];
      members.push({ nodeId: String(id), memberForMs: Number(memberForMs), owned: ownedFromText(list) });
    }
    return membershipView(reply[0] === 1, members);
  }

  async leave(subscription: string, nodeId: string, instance: string): Promise<void> {
    await this.client.eval(leaveScript, 1, `${hashTaggedKey(this.keyPrefix, subscription)}:members`, nodeId, instance);
  }
}

function unexpectedReply(reply: unknown, base: string): Error {
  return new Error(
    `Unexpected reply from the membership script for ${quoteText(base)}: ${describeValue(reply)}. Its :members and ` +
      ':partitions keys must hold only what RedisMembership writes.',
  );
}
