-- renew.lua: extend the leases of many held locks in one call (the watchdog's batch), of every
-- kind: reentrant and fair locks (the key's TTL is the lease), read-write writers and readers
-- (their own lease end in the hash; see lib/rw_state.lua). Owner ids are unique, so the owner
-- tells which hold of a key is meant.
--
-- KEYS[1..n]    lock hashes
-- ARGV[1]       lease in milliseconds
-- ARGV[2..n+1]  the owner id expected for KEYS[i] is ARGV[i+1]
--
-- Returns  an array of n integers: 1 renewed; 0 the hold is gone (key gone, or its lease ended);
--          -1 the key is held by someone else. A lock is never created here, so a renewal racing a
--          release cannot bring a released lock back (Redlock re-creates a lost copy separately,
--          see reassert.lua). A read-write key's TTL is only ever extended here, never shortened.

-- @include lib/tokens.lua

local lease = tonumber(ARGV[1])
local function extend(key)
  if redis.call('PTTL', key) < lease then
    redis.call('PEXPIRE', key, lease)
  end
end

local result = {}
for i = 1, #KEYS do
  local key, owner = KEYS[i], ARGV[i + 1]
  local writer = redis.call('HGET', key, 'o')
  if writer == owner then
    local lease_end = redis.call('HGET', key, 'e')
    if not lease_end then
      redis.call('PEXPIRE', key, lease)
      result[i] = 1
    elseif tonumber(lease_end) > server_now() then
      redis.call('HSET', key, 'e', fmt(server_now() + lease))
      extend(key)
      result[i] = 1
    else
      result[i] = 0
    end
  else
    local reader = redis.call('HGET', key, 'r:' .. owner)
    if reader then
      local count, ends, rest = string.match(reader, '^(%d+):(%d+):(.*)$')
      if tonumber(ends) > server_now() then
        redis.call('HSET', key, 'r:' .. owner, count .. ':' .. fmt(server_now() + lease) .. ':' .. rest)
        extend(key)
        result[i] = 1
      else
        result[i] = 0
      end
    elseif writer == false then
      result[i] = 0
    else
      result[i] = -1
    end
  end
end
return result
