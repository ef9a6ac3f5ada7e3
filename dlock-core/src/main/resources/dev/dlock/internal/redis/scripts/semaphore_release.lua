-- semaphore_release.lua: give back one permit of a semaphore (also to abandon an attempt: a permit
-- has no re-entries). The last permit deletes the hash; waiters are woken.
--
-- KEYS[1]  the semaphore hash <prefix>{name} (layout in lib/semaphore_state.lua)
-- KEYS[2]  optional: the token floor (see lib/tokens.lua), raised to the released token
-- ARGV[1]  owner id of the caller
-- ARGV[2]  pub/sub channel of the semaphore's waiters
-- ARGV[3]  fencing token of the permit (Redlock: the quorum's token), "0" when unknown
-- ARGV[4]  how long the token floor lives, in ms
--
-- Returns  0   released; the permit's token was published on ARGV[2]
--          -1  the caller holds no permit (its lease ended, or it was force-released); nothing
--              of anyone else's was changed

-- @include lib/tokens.lua
-- @include lib/holds.lua
-- @include lib/semaphore_state.lua
-- @include lib/pubsub.lua

local owner = ARGV[1]
local now = server_now()
local s = semaphore_state(now)
local held = s.holders[owner]
if not held then
  return -1
end
if s.count == 1 then
  redis.call('DEL', KEYS[1])
elseif held.slot then
  redis.call('HDEL', KEYS[1], 'r:' .. owner, 's:' .. held.slot)
else
  redis.call('HDEL', KEYS[1], 'r:' .. owner)
end
local released = fmt(math.max(tonumber(held.token), tonumber(ARGV[3])))
raise_floor(KEYS[2], released, ARGV[4])
if s.count > 1 and tonumber(s.max_token or '0') < tonumber(released) then
  redis.call('HSET', KEYS[1], 'm', released)
end
publish(ARGV[2], released)
return 0
