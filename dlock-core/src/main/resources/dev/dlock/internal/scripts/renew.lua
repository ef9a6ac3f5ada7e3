-- renew.lua: extend the leases of many held locks in one call (the watchdog's batch).
--
-- KEYS[1..n]    lock hashes
-- ARGV[1]       lease in milliseconds
-- ARGV[2..n+1]  the owner id expected for KEYS[i] is ARGV[i+1]
--
-- Returns  an array of n integers: 1 renewed, 0 not renewed because the lock is gone or owned by
--          someone else (the caller has lost it). A lock is never created here, so a renewal
--          racing a release cannot bring a released lock back.
local result = {}
for i = 1, #KEYS do
  if redis.call('HGET', KEYS[i], 'o') == ARGV[i + 1] then
    redis.call('PEXPIRE', KEYS[i], ARGV[1])
    result[i] = 1
  else
    result[i] = 0
  end
end
return result
