import { readStoredVersionLua } from './stored-version-lua.js';

// Each script is one atomic step on the server. Tokens travel as decimal strings and are only ever produced by INCR,
// never by Lua arithmetic, so they stay exact beyond 2**53. Sent with EVAL: at one call per third of a lease time,
// the script body costs nothing worth an EVALSHA/NOSCRIPT round trip.

/**
 * KEYS[1] lease, KEYS[2] token counter; ARGV[1] owner, ARGV[2] lease time in ms.
 * Replies {'granted', token} after minting the next token (0 first), {'held', token} when ARGV[1] already holds the
 * lease (its expiry is renewed, its token kept), or {'taken', token} when another owner holds it.
 */
export const acquireLeaseScript = `
local held = redis.call('GET', KEYS[1])
if held then
  local space = string.find(held, ' ', 1, true)
  local token = string.sub(held, 1, space - 1)
  if string.sub(held, space + 1) == ARGV[1] then
    redis.call('SET', KEYS[1], held, 'PX', ARGV[2])
    return {'held', token}
  end
  return {'taken', token}
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('INCR', KEYS[2])
else
  redis.call('SET', KEYS[2], '0')
end
local token = redis.call('GET', KEYS[2])
redis.call('SET', KEYS[1], token .. ' ' .. ARGV[1], 'PX', ARGV[2])
return {'granted', token}
`;

/**
 * KEYS: leases (one hash slot on a Cluster); ARGV[1] lease time in ms, ARGV[1 + i] the expected `"<token> <owner>"`
 * of KEYS[i]. Renews each lease that still holds its expected value; replies 1 (renewed) or 0 (not held) for each.
 */
export const refreshLeasesScript = `
local renewed = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i + 1] then
    redis.call('PEXPIRE', key, ARGV[1])
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
`;

/** KEYS[1] lease; ARGV[1] expected `"<token> <owner>"`. Deletes the lease only when it still holds that value. */
export const releaseLeaseScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`;

/**
 * KEYS[1] lease (declared, so that Cluster checks the two share a slot, never touched), KEYS[2] token counter;
 * ARGV[1] the version to raise the floor above, a canonical decimal. Sets the counter to ARGV[1] when it is missing
 * or a smaller decimal, so that the next INCR mints above it; never lowers it. Replies `raised`, `kept`, or
 * `invalid:<value>` when the counter holds something other than a canonical decimal (then nothing is written).
 */
export const raiseTokenFloorScript = `${readStoredVersionLua()}local wanted = ARGV[1]
if stored and (#stored > #wanted or (#stored == #wanted and stored >= wanted)) then
  return 'kept'
end
redis.call('SET', KEYS[2], wanted)
return 'raised'
`;
