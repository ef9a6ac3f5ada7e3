-- fair_acquire.lua: take a fair lock in request order, or re-enter it, with a lease.
--
-- KEYS[1]  the lock hash <prefix>{name}, laid out as for acquire.lua; while the lock is handed
--          to a waiter that has not claimed it yet, o = that waiter's id
-- KEYS[2]  the queue <prefix>{name}:queue (see lib/fair_queue.lua)
-- KEYS[3]  the waiters <prefix>{name}:waiters (see lib/fair_queue.lua)
-- KEYS[4]  optional: the token floor (see lib/tokens.lua); fresh tokens start above it and raise it
-- ARGV[1]  owner id of this attempt (fresh for every attempt)
-- ARGV[2]  lease in milliseconds (positive integer)
-- ARGV[3]  holder description stored for inspection
-- ARGV[4]  "1" when the caller believes it holds the lock already (re-entry), else "0"
-- ARGV[5]  waiter id: the acquisition's place in the queue, the same for all its attempts
-- ARGV[6]  waiter timeout in ms: a queued waiter that does not ask again within it is dropped
-- ARGV[7]  "1" when the caller waits if refused (it is queued), "0" for a single try
-- ARGV[8]  the waiter's ticket when it has one (agreed across Redlock nodes), else "0"
-- ARGV[9]  how long the token floor lives after this grant, in ms (with KEYS[4])
--
-- Returns  {1, token, holdCount}      granted; token is a decimal string
--          {0, retryAfterMs, ticket}  refused: held (retryAfterMs = lease left, -1: no TTL), or
--                                     free with a live waiter ahead (ms until that waiter's
--                                     deadline); ticket = the caller's place, "0" if not queued
--          {-1}                       re-entry asked, but the caller no longer owns the lock
--
-- Granted when the lock is free and no live waiter is ahead of the caller, or when the release
-- handed the lock to the caller's waiter id (a claim: the token given with the handoff is kept).
-- A single try is never queued, so it cannot overtake queued waiters either.

-- @include lib/tokens.lua
-- @include lib/fair_queue.lua

local owner, lease, holder, waiter = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[5]
local held_by = redis.call('HGET', KEYS[1], 'o')

if ARGV[4] == '1' then
  if held_by ~= owner then
    return {-1}
  end
  local count = redis.call('HINCRBY', KEYS[1], 'c', 1)
  -- a re-entry may extend the lease but never shortens the outer hold's
  if redis.call('PTTL', KEYS[1]) < lease then
    redis.call('PEXPIRE', KEYS[1], lease)
  end
  return {1, redis.call('HGET', KEYS[1], 't'), count}
end

local function grant(token)
  redis.call('HSET', KEYS[1], 'o', owner, 'c', 1, 't', token, 'h', holder)
  redis.call('PEXPIRE', KEYS[1], lease)
  leave_queue(waiter)
  return {1, token, 1}
end

if held_by == waiter then
  return grant(redis.call('HGET', KEYS[1], 't'))
end

local now = server_now()
local ticket = 0
if ARGV[7] == '1' then
  ticket = join_queue(waiter, tonumber(ARGV[8]), now, tonumber(ARGV[6]), lease, holder)
end
local head, head_deadline = live_head()
-- free: no key, or still ours from an attempt whose reply the caller never saw; a key without an
-- owner field is a read-write lock of the same name, which counts as held
local free = held_by == owner or (held_by == false and redis.call('EXISTS', KEYS[1]) == 0)
if free and (head == nil or head == waiter) then
  return grant(grant_token(redis.call('HGET', KEYS[1], 't'), KEYS[4], ARGV[9]))
end
local retry
if free then
  retry = head_deadline - now
else
  retry = redis.call('PTTL', KEYS[1])
end
return {0, retry, fmt(ticket)}
