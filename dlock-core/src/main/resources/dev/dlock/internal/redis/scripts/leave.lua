-- leave.lua: a queued waiter of a reentrant lock stops waiting (timed out, interrupted,
-- cancelled, failed): its entry goes at once, and a lock handed to it that it has not taken over
-- goes to the next queued waiter (lib/next_waiter.lua) or is released.
--
-- KEYS[1]  the lock hash <prefix>{name}
-- KEYS[2]  the queue of waiters <prefix>{name}:queue (see lib/fair_queue.lua)
-- KEYS[3]  the waiters' entries <prefix>{name}:waiters
-- KEYS[4]  optional: the token floor (see lib/tokens.lua)
-- ARGV[1]  waiter id
-- ARGV[2]  pub/sub channel of the lock's waiters
-- ARGV[3]  how long the token floor lives, in ms (with KEYS[4])
--
-- Returns  1  the waiter was queued or had been handed the lock; it is gone from both, and a lock
--             that was handed to it, or is free with it first in line, went on to the next waiter
--             (or, with none, its release was published)
--          0  it was in neither; nothing was changed

-- @include lib/tokens.lua
-- @include lib/fair_queue.lua
-- @include lib/pubsub.lua
-- @include lib/next_waiter.lua

local waiter = ARGV[1]
local was_first = redis.call('ZRANK', KEYS[2], waiter) == 0
local queued = redis.call('ZREM', KEYS[2], waiter) == 1
redis.call('HDEL', KEYS[3], waiter)
local handed = redis.call('HGET', KEYS[1], 'o') == waiter
if handed or (was_first and redis.call('EXISTS', KEYS[1]) == 0) then
  local released = redis.call('HGET', KEYS[1], 't') or now_us()
  pass_on(released, ARGV[2], KEYS[4], ARGV[3], true, true)
end
if queued or handed then
  return 1
end
return 0
