-- abandon.lua: drop every hold the caller has on a lock at once. Used when the caller cannot
-- know whether an acquire succeeded (timeout, cancellation) and when a client closes.
--
-- KEYS[1]  the lock hash <prefix>{name}
-- ARGV[1]  owner id of the caller
-- ARGV[2]  pub/sub channel of the lock's waiters
--
-- Returns  1  the caller held the lock; the hash is deleted and waiters were woken
--          0  the caller did not hold it; nothing was changed
if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[2], 'released')
return 1
