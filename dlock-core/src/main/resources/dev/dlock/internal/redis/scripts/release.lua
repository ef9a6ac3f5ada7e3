-- release.lua: give back one hold of a reentrant lock; the last one hands the lock to the first
-- queued waiter (lib/next_waiter.lua), or deletes it and wakes the waiters.
--
-- KEYS[1]  the lock hash <prefix>{name} (fields: see acquire.lua)
-- KEYS[2]  the queue of waiters <prefix>{name}:queue (see lib/fair_queue.lua)
-- KEYS[3]  the waiters' entries <prefix>{name}:waiters
-- KEYS[4]  optional: the token floor (see lib/tokens.lua), raised to ARGV[3] when that is above
--          this node's own token (Redlock: the quorum's token)
-- ARGV[1]  owner id of the caller
-- ARGV[2]  pub/sub channel of the lock's waiters
-- ARGV[3]  fencing token of the hold (Redlock: the quorum's token), "0" when unknown
-- ARGV[4]  how long the token floor lives, in ms
-- ARGV[5]  "0" where waiters are never queued (Redlock: acquire.lua is given no waiter id there), so
--          the queue is not looked at; else "1"
--
-- Returns  n > 0  still held by the caller with n holds left
--          0      released: handed to the first live queued waiter, which was told
--                 (lib/next_waiter.lua); or, with none queued, the hash is deleted and its token
--                 was published on ARGV[2]
--          -1     the caller does not own the lock (its lease expired, or it was force-released
--                 and maybe taken by someone else); nothing was changed

-- @include lib/tokens.lua
-- @include lib/fair_queue.lua
-- @include lib/pubsub.lua
-- @include lib/next_waiter.lua

local hold = redis.call('HMGET', KEYS[1], 'o', 'c', 't')
if hold[1] ~= ARGV[1] then
  return -1
end
local count = tonumber(hold[2] or '1')
if count > 1 then
  -- acquire.lua's layout: the field is there only from 2 holds on
  if count == 2 then
    redis.call('HDEL', KEYS[1], 'c')
  else
    redis.call('HSET', KEYS[1], 'c', count - 1)
  end
  return count - 1
end
local released = hold[3]
if tonumber(ARGV[3]) > tonumber(hold[3]) then
  -- Redlock: the quorum's token is above this node's own; the floor already holds the node's own,
  -- since its grant (or has lapsed, which the clock covers)
  released = ARGV[3]
  raise_floor(KEYS[4], released, ARGV[4])
end
pass_on(released, ARGV[2], KEYS[4], ARGV[4], ARGV[5] ~= '0', hold[2] ~= false)
return 0
