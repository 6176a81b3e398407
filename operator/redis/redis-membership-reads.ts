import type * as IORedis from 'ioredis';
import { parseRedisMemberValue, redisMembershipKeys } from 'checkpoint-fencing/store-layout';
import type { RecordedMember, RecordedMembership } from '../partitioned-subscription-health.js';
import { recordedPartitionCount } from '../partitioned-subscription-health.js';

// Read-only: the server's clock and both keys of one membership in one step, on the node that holds them (one hash
// tag), so member times are judged on the clock RedisMembership judges them on. pcall: a key of another type is a
// problem of its row, not a failure of the inspection.
const readMembershipScript = `local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local partitions = redis.pcall('GET', KEYS[2])
local members = redis.pcall('HGETALL', KEYS[1])
if type(partitions) == 'table' and partitions.err then partitions = 'error: ' .. partitions.err end
if type(members) == 'table' and members.err then members = {'', 'error: ' .. members.err} end
return {now, partitions, members}
`;

/**
 * The memberships of `names` (those with a recorded partition count; the others are no partitioned subscriptions),
 * read as `RedisMembership` keeps them under `keyPrefix`.
 */
export async function readRedisMemberships(
  client: IORedis.Redis | IORedis.Cluster,
  keyPrefix: string,
  names: readonly string[],
): Promise<RecordedMembership[]> {
  const read = await Promise.all(names.map((name) => readRedisMembership(client, keyPrefix, name)));
  return read.flatMap((membership) => membership ?? []);
}

async function readRedisMembership(
  client: IORedis.Redis | IORedis.Cluster,
  keyPrefix: string,
  name: string,
): Promise<RecordedMembership | undefined> {
  const keys = redisMembershipKeys(keyPrefix, name);
  const [now, partitionsText, fields] = (await client.eval(readMembershipScript, 2, keys.members, keys.partitions)) as [
    number,
    string | null,
    string[],
  ];
  if (partitionsText === null) {
    return undefined;
  }
  const problems: string[] = [];
  const partitions = recordedPartitionCount(partitionsText, `key ${JSON.stringify(keys.partitions)}`, problems);
  const members: RecordedMember[] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const nodeId = fields[index] ?? '';
    const value = fields[index + 1] ?? '';
    const member = parseRedisMemberValue(value);
    if (member === undefined) {
      problems.push(
        `member ${JSON.stringify(nodeId)} of ${JSON.stringify(keys.members)} holds ${JSON.stringify(value)}, not ` +
          '"<expires at> <joined at> <join id> <owned>" as RedisMembership writes it; delete the field (safe: a live ' +
          'node finds out at its next heartbeat and joins again)',
      );
    } else if (member.expiresAtMs > now) {
      members.push({
        nodeId,
        memberForMs: now - member.joinedAtMs,
        expiresInMs: member.expiresAtMs - now,
        owned: member.owned,
      });
    }
  }
  members.sort((a, b) => (a.nodeId < b.nodeId ? -1 : 1));
  return { name, partitions, members, records: { members: keys.members, partitions: keys.partitions }, problems };
}

/** The glob `SCAN` matches the partition-count keys under `keyPrefix` with: its special characters escaped. */
export function partitionCountKeyPattern(keyPrefix: string): string {
  return `${keyPrefix.replace(/[*?[\]\\]/gu, (character) => `\\${character}`)}{*}:partitions`;
}

/** The subscription whose partition-count key `key` is under `keyPrefix`; `undefined` for any other key. */
export function subscriptionOfPartitionCountKey(key: string, keyPrefix: string): string | undefined {
  if (!key.startsWith(`${keyPrefix}{`) || !key.endsWith('}:partitions')) {
    return undefined;
  }
  const tagged = key.slice(keyPrefix.length + 1, -'}:partitions'.length);
  const name = tagged.replace(/%(25|7B|7D)/gu, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  // Confirmed by building the key again: only a key RedisMembership itself would use names a subscription.
  return redisMembershipKeys(keyPrefix, name).partitions === key ? name : undefined;
}
