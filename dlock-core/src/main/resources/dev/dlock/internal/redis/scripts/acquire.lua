-- acquire.lua: take a reentrant lock, or re-enter it, with a lease; on one Redis a refused waiter
-- is queued (see lib/next_waiter.lua and docs/design.md).
--
-- KEYS[1]  the lock hash <prefix>{name}; fields: o = owner id, t = fencing token of the current
--          hold, c = hold count, present only from 2 on (absent: 1); while the lock is handed to a
--          queued waiter that has not taken it over, o = that waiter's id. No holder description:
--          the owner id names the client and thread, whose record (<prefix>client:<client id>,
--          record_holder.lua) says who they are
-- KEYS[2]  the queue of waiters <prefix>{name}:queue (see lib/fair_queue.lua)
-- KEYS[3]  the waiters' entries <prefix>{name}:waiters (see lib/fair_queue.lua)
-- KEYS[4]  optional: the token floor (see lib/tokens.lua), the highest token granted or released
--          here lately; fresh tokens start above it and raise it
-- ARGV[1]  owner id of the caller
-- ARGV[2]  lease in milliseconds (positive integer)
-- ARGV[3]  "1" when the caller believes it holds the lock already (re-entry), else "0"
-- ARGV[4]  how long the token floor lives after this grant, in ms (with KEYS[4])
-- ARGV[5]  the caller's waiter id, the same for all attempts of one acquisition until one fails
--          without an answer (then a fresh one: see docs/design.md); "" where waiters are not
--          queued (Redlock, replica acknowledgements: the queue is not consulted)
-- ARGV[6]  waiter timeout in ms: a queued waiter that does not ask again within it is dropped
-- ARGV[7]  "1" when the caller waits if refused (it is queued), "0" for a single try
--
-- Returns  {1, token, holdCount}  granted; token is a decimal string
--          {0, retryAfterMs}      refused: held by another owner (ms left on its lease, -1: none),
--                                 or free with a live waiter queued ahead (ms until its deadline)
--          {-1}                   re-entry asked, but the caller no longer owns the lock
--
-- The token of a fresh hold is max(previous token in this hash + 1, floor + 1, server TIME in µs),
-- and the floor is raised to it. The hash is deleted on release, so the clock and the floor carry
-- monotonicity across holders (lib/tokens.lua); see docs/design.md. A lock handed to the caller's
-- waiter id by a release its attempt crossed is taken under the attempt's owner id and lease,
-- with the token given with the handoff. A free lock goes to a newcomer only while no live waiter
-- is queued ahead of it, so that nobody queued is passed over. A hold costs its hash two fields
-- (owner and token) as long as it is not re-entered: every byte counts when a client holds many.

-- @include lib/tokens.lua
-- @include lib/fair_queue.lua

if ARGV[3] == '1' then
  local hold = redis.call('HMGET', KEYS[1], 'o', 'c')
  if hold[1] ~= ARGV[1] then
    return {-1}
  end
  local count = tonumber(hold[2] or '1') + 1
  redis.call('HSET', KEYS[1], 'c', count)
  -- a re-entry may extend the lease but never shortens the outer hold's
  if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
  end
  return {1, redis.call('HGET', KEYS[1], 't'), count}
end

local waiter = ARGV[5]
local function queue_if_waiting()
  if waiter ~= '' and ARGV[7] == '1' then
    join_queue(waiter, nil, server_now(), tonumber(ARGV[6]), tonumber(ARGV[2]), '')
  end
end

-- Free: the common case, decided by one call (HLEN also fails with WRONGTYPE on a key of
-- another type, as HGET does)
local previous = nil
local was_queued = false
if redis.call('HLEN', KEYS[1]) > 0 then
  -- held; a hash without an owner field is a read-write lock of the same name (readers, or a
  -- writer waiting): held, as far as this lock is concerned
  local held_by = redis.call('HGET', KEYS[1], 'o')
  if waiter ~= '' and held_by == waiter then
    redis.call('HSET', KEYS[1], 'o', ARGV[1])
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return {1, redis.call('HGET', KEYS[1], 't'), 1}
  end
  if held_by ~= ARGV[1] then
    queue_if_waiting()
    return {0, redis.call('PTTL', KEYS[1])}
  end
  -- still ours from an attempt whose reply the caller never saw: a fresh hold all the same
  previous = redis.call('HGET', KEYS[1], 't')
  was_queued = waiter ~= ''
elseif waiter ~= '' then
  local head, head_deadline = live_head()
  if head and head ~= waiter then
    queue_if_waiting()
    return {0, head_deadline - server_now()}
  end
  was_queued = head ~= nil
end

local token = grant_token(previous, KEYS[4], ARGV[4])
if previous then
  -- the attempt's own earlier grant, maybe re-entered since: a fresh hold counts 1
  redis.call('HDEL', KEYS[1], 'c')
end
redis.call('HSET', KEYS[1], 'o', ARGV[1], 't', token)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if was_queued then
  leave_queue(waiter)
end
return {1, token, 1}
