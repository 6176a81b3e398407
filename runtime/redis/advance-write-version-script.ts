import { RedisLuaScript } from './redis-lua-script.js';
import { readStoredVersionLua, refuseOlderVersionLua } from './stored-version-lua.js';

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
