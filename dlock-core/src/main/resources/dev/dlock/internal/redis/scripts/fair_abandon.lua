-- fair_abandon.lua: drop every hold the caller has on a fair lock at once, optionally keeping
-- the caller's place in the queue. Used when an acquire's outcome is unknown or it was cancelled,
-- when a client closes, and by Redlock when an attempt won only a minority of the nodes: then it
-- gives its copies back but stays queued with its ticket, so the nodes keep agreeing on the order.
--
-- KEYS[1]  the lock hash <prefix>{name}
-- KEYS[2]  the queue <prefix>{name}:queue (see lib/fair_queue.lua)
-- KEYS[3]  the waiters <prefix>{name}:waiters
-- KEYS[4]  optional: the token floor (see lib/tokens.lua), raised to the released token
-- ARGV[1]  owner id of the caller
-- ARGV[2]  pub/sub channel of the lock's waiters
-- ARGV[3]  fencing token of the hold (Redlock: the quorum's token), "0" when unknown
-- ARGV[4]  how long the token floor lives, in ms
-- ARGV[5]  waiter id to keep queued, "" to keep none; then ARGV[6..9] are ignored
-- ARGV[6]  its ticket ("0": none yet)
-- ARGV[7]  waiter timeout in ms
-- ARGV[8]  its lease in ms
-- ARGV[9]  its holder description
--
-- Returns  1  the caller held the lock; the hash is deleted and waiters were woken
--          0  the caller did not hold it; nothing was changed (a late command of a past attempt
--             finds another owner id and does nothing)

-- @include lib/tokens.lua
-- @include lib/fair_queue.lua
-- @include lib/pubsub.lua

if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then
  return 0
end
local released = fmt(math.max(tonumber(redis.call('HGET', KEYS[1], 't')), tonumber(ARGV[3])))
raise_floor(KEYS[4], released, ARGV[4])
redis.call('DEL', KEYS[1])
if ARGV[5] ~= '' then
  join_queue(ARGV[5], tonumber(ARGV[6]), server_now(), tonumber(ARGV[7]), tonumber(ARGV[8]), ARGV[9])
end
publish(ARGV[2], released)
return 1
