-- abandon.lua: drop every hold the caller has on a reentrant lock at once. Used when the caller
-- cannot know whether an acquire succeeded (timeout, cancellation) and when a client closes.
--
-- KEYS[1]  the lock hash <prefix>{name}
-- KEYS[2]  the queue of waiters <prefix>{name}:queue (see lib/fair_queue.lua)
-- KEYS[3]  the waiters' entries <prefix>{name}:waiters
-- KEYS[4]  optional: the token floor (see lib/tokens.lua), raised to ARGV[3] when that is above
--          this node's own token (Redlock: the quorum's token)
-- ARGV[1]  owner id of the caller
-- ARGV[2]  pub/sub channel of the lock's waiters
-- ARGV[3]  fencing token of the hold (Redlock: the quorum's token), "0" when unknown
-- ARGV[4]  how long the token floor lives, in ms
--
-- Returns  1  the caller held the lock; it went to the first live queued waiter (which was told,
--             lib/next_waiter.lua), or the hash is deleted and waiters were woken
--          0  the caller did not hold it; nothing was changed

-- @include lib/tokens.lua
-- @include lib/fair_queue.lua
-- @include lib/pubsub.lua
-- @include lib/next_waiter.lua

if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then
  return 0
end
local released = redis.call('HGET', KEYS[1], 't')
if tonumber(ARGV[3]) > tonumber(released) then
  -- Redlock: the quorum's token is above this node's own (see release.lua)
  released = ARGV[3]
  raise_floor(KEYS[4], released, ARGV[4])
end
pass_on(released, ARGV[2], KEYS[4], ARGV[4], true, true)
return 1
