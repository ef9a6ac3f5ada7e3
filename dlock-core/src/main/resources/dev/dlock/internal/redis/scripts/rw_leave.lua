-- rw_leave.lua: a writer that stops waiting (timed out, interrupted, cancelled, failed, or
-- granted on a Redlock majority and cleaning up the other nodes) removes its waiting mark at once,
-- so that the readers it held back may go.
--
-- KEYS[1]  the lock hash <prefix>{name} (layout in lib/rw_state.lua)
-- ARGV[1]  waiter id of the writer
-- ARGV[2]  pub/sub channel of the lock's waiters
--
-- Returns  1  the mark was the writer's; it is removed and every waiter was woken
--          0  it was not (another writer's, or none); nothing was changed

-- @include lib/tokens.lua
-- @include lib/holds.lua
-- @include lib/rw_state.lua
-- @include lib/pubsub.lua

local now = server_now()
local s = rw_state(now)
if s.waiting ~= ARGV[1] then
  return 0
end
redis.call('HDEL', KEYS[1], 'w')
rw_settle(now)
publish(ARGV[2], now_us())
return 1
