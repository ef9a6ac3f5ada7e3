-- force_release.lua: release a lock whoever holds it (operator action), of every kind: a
-- reentrant or fair lock (its queue stays: waiters keep their places), or a read-write lock
-- (writer, every reader and a writer's waiting mark).
--
-- KEYS[1]  the lock hash <prefix>{name}
-- KEYS[2]  optional (Redlock only): the node's token floor <prefix>token-floor
-- ARGV[1]  pub/sub channel of the lock's waiters
-- ARGV[2]  Redlock only: how long the token floor lives, in ms
--
-- Returns  1  the lock was held; the hash is deleted and its highest token was published on ARGV[1]
--          0  the lock was free (a leftover waiting mark, if any, is deleted too)
-- HLEN first so that a key of another type fails with WRONGTYPE instead of being deleted.
if redis.call('HLEN', KEYS[1]) == 0 then
  return 0
end
local held, token = false, 0
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local field = fields[i]
  if field == 'o' or string.sub(field, 1, 2) == 'r:' then
    held = true
  end
  if field == 't' or field == 'm' then
    token = math.max(token, tonumber(fields[i + 1]))
  end
end
token = string.format('%.0f', token)
if KEYS[2] then
  local floor = math.max(tonumber(redis.call('GET', KEYS[2]) or '0'), tonumber(token))
  redis.call('SET', KEYS[2], string.format('%.0f', floor), 'PX', ARGV[2])
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[1], token)
if held then
  return 1
end
return 0
