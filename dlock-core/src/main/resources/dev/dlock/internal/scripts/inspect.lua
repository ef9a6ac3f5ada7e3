-- inspect.lua: read a lock's state in one round trip, for isLocked, status and monitoring.
--
-- KEYS[1]  the lock hash <prefix>{name}
--
-- Returns  {}                                      the lock is free
--          {owner, holdCount, token, holder, pttl}  held; token is a decimal string,
--                                                   pttl = ms left on the lease (-1: none)
local fields = redis.call('HMGET', KEYS[1], 'o', 'c', 't', 'h')
if fields[1] == false then
  return {}
end
return {fields[1], tonumber(fields[2]), fields[3], fields[4] or '', redis.call('PTTL', KEYS[1])}
