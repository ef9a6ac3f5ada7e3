-- semaphore_acquire.lua: take one permit of a semaphore, with a lease.
--
-- KEYS[1]  the semaphore hash <prefix>{name} (layout in lib/semaphore_state.lua)
-- KEYS[2]  optional: the token floor (see lib/tokens.lua); fresh tokens start above it and raise it
-- ARGV[1]  owner id of this attempt (fresh for every attempt)
-- ARGV[2]  lease in milliseconds (positive integer)
-- ARGV[3]  holder description stored for inspection
-- ARGV[4]  the permit count the caller expects (positive integer)
-- ARGV[5]  how long the token floor lives after this grant, in ms (with KEYS[2])
--
-- Returns  {1, token, 1, slot}  granted; token is a decimal string, slot the permit's slot (0-based)
--          {0, retryAfterMs}     every permit is held; ms until the first of their leases ends
--                                (-1: a lock of another kind without TTL holds the name)
--          {-2, permits}         the semaphore is held with another permit count than ARGV[4];
--                                nothing was changed
--
-- The permit count is stored with the semaphore by the acquire that finds it empty and is fixed
-- while any permit is held: a caller with another count is refused (-2) rather than silently
-- allowed more or fewer holders. Once the last permit is released or expired the hash is gone and
-- the next acquire sets the count afresh. The free slot with the lowest number is taken, so that
-- Redlock nodes that agree on the holders also agree on the slot. Every grant's token exceeds
-- every token handed out before for this name (the hash's highest, the floor, the server clock).

-- @include lib/tokens.lua
-- @include lib/holds.lua
-- @include lib/semaphore_state.lua

local owner, lease, holder, permits = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local now = server_now()
local s = semaphore_state(now)
if s.foreign then
  return {0, s.foreign}
end
if s.count > 0 and not s.permits then
  -- readers of a read-write lock of the same name
  return {0, s.first_end - now}
end
if s.count > 0 and s.permits ~= permits then
  return {-2, s.permits}
end
-- still ours from this very attempt (a reply the caller never saw): a fresh grant of the same slot
local slot = s.holders[owner] and s.holders[owner].slot
if not slot then
  if s.count >= permits then
    return {0, s.first_end - now}
  end
  slot = 0
  while s.slots[slot] do
    slot = slot + 1
  end
end
local token = grant_token(s.max_token, KEYS[2], ARGV[5])
local lease_end = now + lease
redis.call('HSET', KEYS[1], 'r:' .. owner, '1:' .. fmt(lease_end) .. ':' .. token .. ':' .. holder,
    's:' .. slot, owner, 'n', permits, 'm', token)
redis.call('PEXPIRE', KEYS[1], math.max(s.last_end, lease_end) - now)
return {1, token, 1, slot}
