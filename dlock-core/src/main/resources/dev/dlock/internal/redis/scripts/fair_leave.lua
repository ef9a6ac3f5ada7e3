-- fair_leave.lua: a waiter that stops waiting (timed out, interrupted, cancelled, failed, or
-- granted on a Redlock majority and cleaning up the other nodes) leaves the queue at once; a
-- lock handed to it and not claimed goes back to the next waiter.
--
-- KEYS[1]  the lock hash <prefix>{name}
-- KEYS[2]  the queue <prefix>{name}:queue (see lib/fair_queue.lua)
-- KEYS[3]  the waiters <prefix>{name}:waiters
-- ARGV[1]  waiter id
-- ARGV[2]  pub/sub channel of the lock's waiters
--
-- Returns  1  the waiter was queued or had been handed the lock; it is gone from both, and when
--             someone may go now (it was first, or held the handoff) every waiter was woken
--          0  it was in neither; nothing was changed

-- @include lib/tokens.lua
-- @include lib/fair_queue.lua
-- @include lib/pubsub.lua

local waiter = ARGV[1]
local was_first = redis.call('ZRANK', KEYS[2], waiter) == 0
local queued = redis.call('ZREM', KEYS[2], waiter) == 1
redis.call('HDEL', KEYS[3], waiter)
local handed = redis.call('HGET', KEYS[1], 'o') == waiter
if handed then
  redis.call('DEL', KEYS[1])
end
if handed or was_first then
  publish(ARGV[2], now_us())
end
if queued or handed then
  return 1
end
return 0
