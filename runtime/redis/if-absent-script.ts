import { RedisLuaScript } from './redis-lua-script.js';

/**
 * `ifAbsent()`: KEYS = [checkpoint key, version key], ARGV = [checkpoint]. Writes the checkpoint only when none is
 * stored and never writes the version key. Replies one string:
 * `accepted`, or `refused:<stored version>` (`refused:` when none is stored).
 */
export const ifAbsentScript = new RedisLuaScript(
  'ifAbsent',
  `if redis.call('EXISTS', KEYS[1]) == 1 then
  return 'refused:' .. (redis.call('GET', KEYS[2]) or '')
end
redis.call('SET', KEYS[1], ARGV[1])
return 'accepted'
`,
);
