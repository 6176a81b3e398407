import { RedisLuaScript } from './redis-lua-script.js';

/**
 * `notOlderThan(v)`: KEYS = [checkpoint key, version key], ARGV = [checkpoint, v as a decimal string].
 * Refuses when the stored version is a larger decimal than v, else stores both with one MSET. Versions are compared as decimal
 * strings, length first, then byte by byte: `tonumber` would round above 2**53, and `<` on strings follows the
 * server's collation locale. Replies `{'accepted', v}` or `{'refused', stored}`, strings only.
 */
export const notOlderThanScript = new RedisLuaScript(
  'notOlderThan',
  `local stored = redis.call('GET', KEYS[2])
if stored then
  local wanted = ARGV[2]
  local newer = #stored > #wanted
  if #stored == #wanted then
    for i = 1, #stored do
      local s, w = string.byte(stored, i), string.byte(wanted, i)
      if s ~= w then
        newer = s > w
        break
      end
    end
  end
  if newer then
    return {'refused', stored}
  end
end
redis.call('MSET', KEYS[1], ARGV[1], KEYS[2], ARGV[2])
return {'accepted', ARGV[2]}
`,
);
