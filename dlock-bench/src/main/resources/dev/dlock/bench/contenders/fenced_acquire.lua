-- fenced_acquire.lua: the fenced quorum floor's acquire (RedlockScriptFloor): the least a lock
-- with failover-safe fencing tokens asks of each node: a string key set with a lease when free,
-- whose token is max(server TIME in µs, token floor + 1) with the floor raised to it in the same
-- script, the rule of dlock's lib/tokens.lua. No re-entry, no waiter queue, no wake-up.
-- KEYS[1]: the lock's key
-- KEYS[2]: the node's token floor
-- ARGV[1]: owner id
-- ARGV[2]: lease in milliseconds
-- ARGV[3]: how long the floor lives, in milliseconds
-- returns: {1, token} granted (token a decimal string, as dlock's acquire.lua gives it);
--          {0} the key is held

if redis.call('EXISTS', KEYS[1]) == 1 then
  return {0}
end
local now = redis.call('TIME')
local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
local floor = tonumber(redis.call('SET', KEYS[2], string.format('%.0f', token), 'PX', ARGV[3], 'GET') or '0')
if floor >= token then
  token = floor + 1
  redis.call('SET', KEYS[2], string.format('%.0f', token), 'PX', ARGV[3])
end
token = string.format('%.0f', token)
redis.call('SET', KEYS[1], ARGV[1] .. '\t' .. token, 'PX', ARGV[2])
return {1, token}
