import { RedisLuaScript } from './redis-lua-script.js';
import { readStoredVersionLua, refuseOlderVersionLua } from './stored-version-lua.js';

/**
 * `notOlderThan(v)`: KEYS = [checkpoint key, version key], ARGV = [checkpoint, v as a decimal string].
 * Refuses when the stored version is a larger decimal than v, else stores both with one MSET. Versions are compared as
 * decimal strings, length first, then lexicographically: `tonumber` would round above 2**53 (ADR 0101). Replies one
 * string, `accepted`, `refused:<stored>` or `invalid:<stored>`: never a Lua number, and no table, which costs the
 * server a conversion.
 */
export const notOlderThanScript = new RedisLuaScript(
  'notOlderThan',
  `${readStoredVersionLua()}${refuseOlderVersionLua('ARGV[2]')}redis.call('MSET', KEYS[1], ARGV[1], KEYS[2], wanted)
return 'accepted'
`,
);

/**
 * `ifAbsent()`: KEYS = [checkpoint key, version key], ARGV = [checkpoint]. Writes the checkpoint only when none is
 * stored and never writes the version key. Replies one string: `accepted`, `refused:<stored version>` (`refused:`
 * when none is stored), or `invalid:<stored>` for a version key that does not hold a canonical decimal.
 */
export const ifAbsentScript = new RedisLuaScript(
  'ifAbsent',
  `${readStoredVersionLua()}if redis.call('EXISTS', KEYS[1]) == 1 then
  return 'refused:' .. (stored or '')
end
redis.call('SET', KEYS[1], ARGV[1])
return 'accepted'
`,
);

/**
 * `advanceWriteVersion(v)`: KEYS = [checkpoint key, version key], ARGV = [v as a decimal string]. Refuses when the
 * stored version is a larger decimal than v, else sets the version key alone; the checkpoint key is declared so that
 * Cluster checks both keys share a slot, but never read or written. Compares decimal strings, length first, then
 * lexicographically, never `tonumber` (ADR 0101). Replies like the save scripts.
 */
export const advanceWriteVersionScript = new RedisLuaScript(
  'advanceWriteVersion',
  `${readStoredVersionLua()}${refuseOlderVersionLua('ARGV[1]')}redis.call('SET', KEYS[2], wanted)
return 'accepted'
`,
);
