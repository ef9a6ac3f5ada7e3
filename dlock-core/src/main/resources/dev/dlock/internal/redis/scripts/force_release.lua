-- force_release.lua: release a lock whoever holds it (operator action), of every kind: a
-- reentrant or fair lock (its queue stays: waiters keep their places), or a read-write lock
-- (writer, every reader and a writer's waiting mark).
--
-- KEYS[1]  the lock hash <prefix>{name}
-- KEYS[2]  optional: the token floor (see lib/tokens.lua), raised to the released token
-- ARGV[1]  pub/sub channel of the lock's waiters
-- ARGV[2]  how long the token floor lives, in ms
--
-- Publishes also, to each holder's client channel <prefix>client:{<client id>} (the prefix is
-- KEYS[1] up to its '{'; the client id is the owner id up to its first ':'), the message
-- "<KEYS[1]>\t<owner id>", so that the holder hears of the loss at once, not at its next renewal
-- (one Redis and Redlock; not on a Cluster, where that channel is in another slot).
--
-- Returns  1  the lock was held; the hash is deleted and its highest token was published on ARGV[1]
--          0  the lock was free (a leftover waiting mark, if any, is deleted too)
-- HLEN first so that a key of another type fails with WRONGTYPE instead of being deleted.

-- @include lib/tokens.lua
-- @include lib/pubsub.lua

if redis.call('HLEN', KEYS[1]) == 0 then
  return 0
end
local held, token = false, 0
local owners = {}
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local field = fields[i]
  if field == 'o' then
    held = true
    owners[#owners + 1] = fields[i + 1]
  elseif string.sub(field, 1, 2) == 'r:' then
    held = true
    owners[#owners + 1] = string.sub(field, 3)
  end
  if field == 't' or field == 'm' then
    token = math.max(token, tonumber(fields[i + 1]))
  end
end
token = fmt(token)
raise_floor(KEYS[2], token, ARGV[2])
redis.call('DEL', KEYS[1])
publish(ARGV[1], token)
local prefix = string.sub(KEYS[1], 1, string.find(KEYS[1], '{', 1, true) - 1)
for _, owner in ipairs(owners) do
  local client = string.match(owner, '^([^:]+):')
  if client then
    notify_holder(prefix .. 'client:{' .. client .. '}', KEYS[1] .. '\t' .. owner)
  end
end
if held then
  return 1
end
return 0
