-- release.lua: give back one hold of a reentrant lock; the last one deletes it and wakes waiters.
--
-- KEYS[1]  the lock hash <prefix>{name}
-- KEYS[2]  optional (Redlock only): the node's token floor <prefix>token-floor
-- ARGV[1]  owner id of the caller
-- ARGV[2]  pub/sub channel of the lock's waiters
-- ARGV[3]  fencing token of the hold (Redlock: the quorum's token), "0" when unknown
-- ARGV[4]  Redlock only: how long the token floor lives, in ms
--
-- Returns  n > 0  still held by the caller with n holds left
--          0      released: the hash is deleted and its token was published on ARGV[2]
--          -1     the caller does not own the lock (its lease expired, or it was force-released
--                 and maybe taken by someone else); nothing was changed

-- Redlock: remember the released token so that the next holder's token on this node exceeds it
-- even if this node's clock is behind the node that issued it; see docs/design.md.
local function raise_floor(token)
  if KEYS[2] then
    local floor = math.max(tonumber(redis.call('GET', KEYS[2]) or '0'), tonumber(token))
    redis.call('SET', KEYS[2], string.format('%.0f', floor), 'PX', ARGV[4])
  end
end

local hold = redis.call('HMGET', KEYS[1], 'o', 'c', 't')
if hold[1] ~= ARGV[1] then
  return -1
end
if tonumber(hold[2]) > 1 then
  return redis.call('HINCRBY', KEYS[1], 'c', -1)
end
local released = string.format('%.0f', math.max(tonumber(hold[3]), tonumber(ARGV[3])))
raise_floor(released)
redis.call('DEL', KEYS[1])
-- the token as message: a waiter subscribed on several Redlock nodes wakes once per release
redis.call('PUBLISH', ARGV[2], released)
return 0
