import { writeVersionField } from './dual-anchor-hash.js';
import { RedisLuaScript } from './redis-lua-script.js';
import { readStoredVersionLua, refuseOlderVersionLua } from './stored-version-lua.js';

// Every dual-anchor script touches one key, the stream's hash (KEYS[1]), so it runs on any Cluster node that owns the
// key's slot. The write version is a field of that hash (ADR 0901). The conditional scripts read it with the same
// opening lines as the checkpoint-storage scripts and answer the same strings: `accepted`, `refused:<stored>`, or
// `invalid:<stored>` for a version field that is not a canonical decimal (nothing is written then). Fengari
// (ioredis-mock) has only `table.unpack`.

const unpack = `local unpack = unpack or table.unpack
`;

/** Sets `stored` to the hash's version field, or ends the script with `invalid:<stored>` when it is not canonical. */
const readVersionFieldLua = readStoredVersionLua(`redis.call('HGET', KEYS[1], '${writeVersionField}')`);

/** `notOlderThan(v)` with `v` in the ARGV slot `wanted`: refuse a larger stored decimal (ADR 0101), else go on with `wanted`. */
function notOlderThanLua(wanted: string): string {
  return `${readVersionFieldLua}${refuseOlderVersionLua(wanted)}`;
}

/** `ifAbsent()`: refuse while any record is stored, carrying its version if it has one. */
const ifAbsentLua = `${readVersionFieldLua}if redis.call('EXISTS', KEYS[1]) == 1 then
  return 'refused:' .. (stored or '')
end
`;

/**
 * `save` and the partial writes under `notOlderThan(v)`: KEYS = [record], ARGV = [v, field, value, field, value, ...].
 * One `HSET` of the fields and the version.
 */
export const dualAnchorNotOlderThanScript = new RedisLuaScript(
  'dual-anchor notOlderThan',
  `${unpack}${notOlderThanLua('ARGV[1]')}redis.call('HSET', KEYS[1], '${writeVersionField}', wanted, unpack(ARGV, 2))
return 'accepted'
`,
);

/** `save` and the partial writes under `ifAbsent()`: KEYS = [record], ARGV = [field, value, ...]. Stores no version. */
export const dualAnchorIfAbsentScript = new RedisLuaScript(
  'dual-anchor ifAbsent',
  `${unpack}${ifAbsentLua}redis.call('HSET', KEYS[1], unpack(ARGV))
return 'accepted'
`,
);

/**
 * The guarded reset after `condition` (a Lua fragment that may return a refusal). ARGV[1] is `1` when a dead processed
 * token is expected, its canonical JSON in ARGV[2]; ARGV[3] the new `lastSeen` pair text (`''` without a fresh token),
 * ARGV[4] the new `lastHeartbeatTimestamp` (`''` likewise). The processed pair `[<ms>,<token>]` is cleared only while
 * its token's text equals the expected one (no stored token matches when none is expected): the guard and the write
 * are one atomic step, so a processed anchor re-acquired before it survives. A `lastProcessed` that is no pair (written
 * by something else) answers `corrupt:<value>` and writes nothing. `versionArguments` adds the version field to the
 * `HSET` when the condition stores one.
 */
function resetScript(name: string, condition: string, versionArguments: string): RedisLuaScript {
  return new RedisLuaScript(
    `resetAfterHistoryLost ${name}`,
    `${unpack}${condition}local processed = redis.call('HGET', KEYS[1], 'lastProcessed')
local token = false
if processed and processed ~= '' then
  local comma = string.find(processed, ',', 1, true)
  if not comma or string.sub(processed, 1, 1) ~= '[' or string.sub(processed, -1) ~= ']' then
    return 'corrupt:' .. processed
  end
  token = string.sub(processed, comma + 1, -2)
  if token == 'null' then
    token = false
  end
end
local dead
if ARGV[1] == '1' then
  dead = token == ARGV[2]
else
  dead = not token
end
local fields = {${versionArguments}'lastSeen', ARGV[3], 'lastHeartbeatTimestamp', ARGV[4]}
if dead then
  table.insert(fields, 'lastProcessed')
  table.insert(fields, '')
end
redis.call('HSET', KEYS[1], unpack(fields))
return 'accepted'
`,
  );
}

/** `resetAfterHistoryLost` under `any()`: KEYS = [record], ARGV = [guard flag, expected, fresh token, timestamp]. */
export const resetAfterHistoryLostScript = resetScript('any()', '', '');

/** `resetAfterHistoryLost` under `notOlderThan(v)`: ARGV as for `any()`, then v in ARGV[5]. */
export const resetAfterHistoryLostNotOlderThanScript = resetScript(
  'notOlderThan',
  notOlderThanLua('ARGV[5]'),
  `'${writeVersionField}', wanted, `,
);

/** `resetAfterHistoryLost` under `ifAbsent()`: ARGV as for `any()`. */
export const resetAfterHistoryLostIfAbsentScript = resetScript('ifAbsent', ifAbsentLua, '');
