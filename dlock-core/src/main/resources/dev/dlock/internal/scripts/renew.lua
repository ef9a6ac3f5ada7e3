-- renew.lua: extend the leases of many held locks in one call (the watchdog's batch).
--
-- KEYS[1..n]    lock hashes
-- ARGV[1]       lease in milliseconds
-- ARGV[2..n+1]  the owner id expected for KEYS[i] is ARGV[i+1]
--
-- Returns  an array of n integers: 1 renewed; 0 the key is gone; -1 the key is owned by someone
--          else. A lock is never created here, so a renewal racing a release cannot bring a
--          released lock back (Redlock re-creates a lost copy separately, see reassert.lua).
local result = {}
for i = 1, #KEYS do
  local owner = redis.call('HGET', KEYS[i], 'o')
  if owner == ARGV[i + 1] then
    redis.call('PEXPIRE', KEYS[i], ARGV[1])
    result[i] = 1
  elseif owner == false then
    result[i] = 0
  else
    result[i] = -1
  end
end
return result
