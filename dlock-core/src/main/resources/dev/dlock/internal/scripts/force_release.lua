-- force_release.lua: release a lock whoever holds it (operator action).
--
-- KEYS[1]  the lock hash <prefix>{name}
-- ARGV[1]  pub/sub channel of the lock's waiters
--
-- Returns  1  the lock was held; the hash is deleted and waiters were woken
--          0  the lock was free
-- HGET first so that a key of another type fails with WRONGTYPE instead of being deleted.
if redis.call('HGET', KEYS[1], 'o') == false then
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[1], 'released')
return 1
