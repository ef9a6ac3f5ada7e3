-- acquire.lua: take a reentrant lock, or re-enter it, with a lease.
--
-- KEYS[1]  the lock hash <prefix>{name}; fields: o = owner id, c = hold count,
--          t = fencing token of the current hold, h = holder description
-- KEYS[2]  optional: the token floor (see lib/tokens.lua), the highest token granted or released
--          here lately; fresh tokens start above it and raise it
-- ARGV[1]  owner id of the caller
-- ARGV[2]  lease in milliseconds (positive integer)
-- ARGV[3]  holder description stored for inspection ("client\thost\tpid\tthread")
-- ARGV[4]  "1" when the caller believes it holds the lock already (re-entry), else "0"
-- ARGV[5]  how long the token floor lives after this grant, in ms (with KEYS[2])
--
-- Returns  {1, token, holdCount}  granted; token is a decimal string
--          {0, pttl}               held by another owner; pttl = ms left on its lease (-1: none)
--          {-1}                    re-entry asked, but the caller no longer owns the lock
--
-- The token of a fresh hold is max(previous token in this hash + 1, floor + 1, server TIME in µs),
-- and the floor is raised to it. The hash is deleted on release, so the clock and the floor carry
-- monotonicity across holders (lib/tokens.lua); see docs/design.md.

-- @include lib/tokens.lua

if ARGV[4] == '1' then
  if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then
    return {-1}
  end
  local count = redis.call('HINCRBY', KEYS[1], 'c', 1)
  -- a re-entry may extend the lease but never shortens the outer hold's
  if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
  end
  return {1, redis.call('HGET', KEYS[1], 't'), count}
end

-- Free: the common case, decided by one call (HLEN also fails with WRONGTYPE on a key of
-- another type, as HGET does)
local previous = nil
if redis.call('HLEN', KEYS[1]) > 0 then
  -- held; a hash without an owner field is a read-write lock of the same name (readers, or a
  -- writer waiting): held, as far as this lock is concerned
  if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then
    return {0, redis.call('PTTL', KEYS[1])}
  end
  -- still ours from an attempt whose reply the caller never saw: a fresh hold all the same
  previous = redis.call('HGET', KEYS[1], 't')
end

local token = grant_token(previous, KEYS[2], ARGV[5])
redis.call('HSET', KEYS[1], 'o', ARGV[1], 'c', 1, 't', token, 'h', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1, token, 1}
