-- release.lua: give back one hold of a reentrant lock; the last one deletes it and wakes waiters.
--
-- KEYS[1]  the lock hash <prefix>{name}
-- ARGV[1]  owner id of the caller
-- ARGV[2]  pub/sub channel of the lock's waiters
--
-- Returns  n > 0  still held by the caller with n holds left
--          0      released: the hash is deleted and one message was published on ARGV[2]
--          -1     the caller does not own the lock (its lease expired, or it was force-released
--                 and maybe taken by someone else); nothing was changed
if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then
  return -1
end
local count = redis.call('HINCRBY', KEYS[1], 'c', -1)
if count > 0 then
  return count
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[2], 'released')
return 0
