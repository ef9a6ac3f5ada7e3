-- force_release.lua: release a lock whoever holds it (operator action).
--
-- KEYS[1]  the lock hash <prefix>{name}
-- KEYS[2]  optional (Redlock only): the node's token floor <prefix>token-floor
-- ARGV[1]  pub/sub channel of the lock's waiters
-- ARGV[2]  Redlock only: how long the token floor lives, in ms
--
-- Returns  1  the lock was held; the hash is deleted and its token was published on ARGV[1]
--          0  the lock was free
-- HGET first so that a key of another type fails with WRONGTYPE instead of being deleted.
if redis.call('HGET', KEYS[1], 'o') == false then
  return 0
end
local token = redis.call('HGET', KEYS[1], 't')
if KEYS[2] then
  local floor = math.max(tonumber(redis.call('GET', KEYS[2]) or '0'), tonumber(token))
  redis.call('SET', KEYS[2], string.format('%.0f', floor), 'PX', ARGV[2])
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[1], token)
return 1
