import { RedisLuaScript } from './redis-lua-script.js';
import { readStoredVersionLua } from './stored-version-lua.js';

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
