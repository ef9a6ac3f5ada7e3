-- fair_release.lua: give back one hold of a fair lock; the last one hands the lock to the first
-- live waiter, within this script, and wakes that waiter only.
--
-- KEYS[1]  the lock hash <prefix>{name}
-- KEYS[2]  the queue <prefix>{name}:queue (see lib/fair_queue.lua)
-- KEYS[3]  the waiters <prefix>{name}:waiters
-- KEYS[4]  optional: the token floor (see lib/tokens.lua), raised to the released token and to the
--          token handed to the next waiter
-- ARGV[1]  owner id of the caller
-- ARGV[2]  pub/sub channel of the lock's waiters
-- ARGV[3]  fencing token of the hold (Redlock: the quorum's token), "0" when unknown
-- ARGV[4]  how long the token floor lives, in ms (with KEYS[4])
--
-- Returns  n > 0  still held by the caller with n holds left
--          0      released; if a live waiter was queued the lock is now its (o = its waiter id,
--                 a fresh token) and "<released token>:<waiter id>" was published, else the
--                 hash is deleted and "<released token>" was published
--          -1     the caller does not own the lock; nothing was changed
--
-- Until the waiter claims it (fair_acquire.lua), the handed-over lock lasts no longer than the
-- waiter's own deadline, so a waiter that died while queued stalls the queue no longer than it
-- would have without the handoff.

-- @include lib/tokens.lua
-- @include lib/fair_queue.lua
-- @include lib/pubsub.lua

if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then
  return -1
end
local count = redis.call('HINCRBY', KEYS[1], 'c', -1)
if count > 0 then
  return count
end
local released = fmt(math.max(tonumber(redis.call('HGET', KEYS[1], 't')), tonumber(ARGV[3])))
raise_floor(KEYS[4], released, ARGV[4])
redis.call('DEL', KEYS[1])
local now = server_now()
local head, deadline, lease, holder = live_head()
if head then
  redis.call('HSET', KEYS[1], 'o', head, 'c', 1, 't', grant_token(released, KEYS[4], ARGV[4]), 'h', holder)
  redis.call('PEXPIRE', KEYS[1], math.min(lease, deadline - now))
  publish(ARGV[2], released .. ':' .. head)
else
  publish(ARGV[2], released)
end
return 0
