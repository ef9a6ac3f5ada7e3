-- handoff.lua: the last release of a reentrant lock by a client that has waiters of its own
-- parked on it: the lock goes to the first queued waiter of another client if there is one
-- (lib/next_waiter.lua), else straight to the client's own waiter, unless waiters that are not
-- queued are subscribed to its channel, in which case it is released for everyone as release.lua
-- does. One Redis or a Redis Cluster only (Redlock releases as usual). Subscribers are counted
-- with lib/pubsub.lua (PUBSUB NUMSUB, on Cluster PUBSUB SHARDNUMSUB on the lock's shard).
--
-- KEYS[1]  the lock hash <prefix>{name}
-- KEYS[2]  the queue of waiters <prefix>{name}:queue (see lib/fair_queue.lua)
-- KEYS[3]  the waiters' entries <prefix>{name}:waiters
-- KEYS[4]  optional: the token floor (see lib/tokens.lua); the new owner's token starts above it
--          and raises it
-- ARGV[1]  owner id of the releasing hold
-- ARGV[2]  pub/sub channel of the lock's waiters
-- ARGV[3]  subscriptions the releasing client itself has on ARGV[2] (0 or 1): they are not
--          waiters of other clients
-- ARGV[4]  owner id for the client's own waiter that takes the lock over
-- ARGV[5]  its lease in milliseconds (positive integer)
-- ARGV[6]  how long the token floor lives after this grant, in ms (with KEYS[4])
-- ARGV[7]  its waiter id: when queued, it leaves the queue with the grant
--
-- Returns  {1, token}  handed over to ARGV[4]: hold count 1, a fresh fencing token (a decimal
--                      string) and lease ARGV[5]; nothing was published
--          {2, waiter} handed to the first queued waiter, which was told (lib/next_waiter.lua)
--          {0}         released for everyone: the hash is deleted, its token was published
--          {-1}        the caller does not own the lock; nothing was changed
--
-- The releasing client's own hold count in Redis is not consulted: the caller says this is its
-- last hold, so a re-entry whose reply it never saw is dropped with the rest (as release.lua
-- followed by abandon.lua would).

-- @include lib/tokens.lua
-- @include lib/fair_queue.lua
-- @include lib/pubsub.lua
-- @include lib/next_waiter.lua

local hold = redis.call('HMGET', KEYS[1], 'o', 'c', 't')
if hold[1] ~= ARGV[1] then
  return {-1}
end
local previous = hold[3]
local counted = hold[2] ~= false
local handed_to, queued = hand_to_first_waiter(previous, ARGV[2], KEYS[4], ARGV[6], ARGV[7], counted)
if handed_to then
  return {2, handed_to}
end
if not queued and subscribers(ARGV[2]) - tonumber(ARGV[3]) > 0 then
  -- waiters of other clients that are not queued: they get their chance, as on any release
  redis.call('DEL', KEYS[1])
  publish(ARGV[2], previous)
  return {0}
end
local token = grant_token(previous, KEYS[4], ARGV[6])
if counted then
  -- a fresh hold in acquire.lua's layout: owner and token; a count left by a re-entry goes
  redis.call('HDEL', KEYS[1], 'c')
end
redis.call('HSET', KEYS[1], 'o', ARGV[4], 't', token)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
if queued then
  leave_queue(ARGV[7])
end
return {1, token}
