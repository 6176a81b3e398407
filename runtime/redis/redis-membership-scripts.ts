// Members of one subscription are fields of one hash, valued "<expires at> <joined at> <instance> <owned>": times in
// milliseconds by the server's clock (TIME, so Redis 5 or later), owned as comma-separated partitions.
const now = `local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

/**
 * KEYS[1] members, KEYS[2] partition count; ARGV[1] node id, ARGV[2] instance, ARGV[3] partitions, ARGV[4] member time.
 * Replies {'partitions', stored} or {'live', ms left}, or adds the member, drops expired ones and replies {'joined'}.
 */
export const joinMemberScript = `${now}local stored = redis.call('GET', KEYS[2])
if stored and stored ~= ARGV[3] then
  return {'partitions', stored}
end
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local expires = tonumber(string.match(all[i + 1], '^%d+'))
  if expires > now and all[i] == ARGV[1] then
    return {'live', expires - now}
  elseif expires <= now then
    redis.call('HDEL', KEYS[1], all[i])
  end
end
redis.call('SET', KEYS[2], ARGV[3])
redis.call('HSET', KEYS[1], ARGV[1], string.format('%.0f %.0f ', now + tonumber(ARGV[4]), now) .. ARGV[2] .. ' ')
return {'joined'}
`;

/**
 * KEYS[1] members (KEYS[2] unused); ARGV[1] node id, ARGV[2] instance, ARGV[3] member time, ARGV[4] owned. Renews the
 * member when that instance holds it unexpired; replies {renewed (1 or 0), then each live member's node id, ms since
 * it joined and owned}.
 */
export const heartbeatScript = `${now}local renewed = 0
local mine = redis.call('HGET', KEYS[1], ARGV[1])
if mine then
  local expires, joined, instance = string.match(mine, '^(%d+) (%d+) (%S+) ')
  if instance == ARGV[2] and tonumber(expires) > now then
    renewed = 1
    redis.call('HSET', KEYS[1], ARGV[1], string.format('%.0f ', now + tonumber(ARGV[3])) .. joined .. ' ' .. instance .. ' ' .. ARGV[4])
  end
end
local reply = {renewed}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local expires, joined, owned = string.match(all[i + 1], '^(%d+) (%d+) %S+ (.*)$')
  if tonumber(expires) > now then
    table.insert(reply, all[i])
    table.insert(reply, now - tonumber(joined))
    table.insert(reply, owned)
  end
end
return reply
`;

/** KEYS[1] members (KEYS[2] unused); ARGV[1] node id, ARGV[2] instance. Deletes the member while that join holds it. */
export const leaveScript = `local mine = redis.call('HGET', KEYS[1], ARGV[1])
if mine and string.match(mine, '^%d+ %d+ (%S+) ') == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
`;
