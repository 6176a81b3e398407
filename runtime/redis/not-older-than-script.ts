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
