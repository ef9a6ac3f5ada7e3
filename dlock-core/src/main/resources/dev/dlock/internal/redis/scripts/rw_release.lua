-- rw_release.lua: give back one hold (or, to abandon, every hold) of one side of a read-write
-- lock. The key is deleted when nothing is held or waited for any more; waiters are woken.
--
-- KEYS[1]  the lock hash <prefix>{name} (layout in lib/rw_state.lua)
-- KEYS[2]  optional: the token floor (see lib/tokens.lua), raised to the released token
-- ARGV[1]  owner id of the caller
-- ARGV[2]  pub/sub channel of the lock's waiters
-- ARGV[3]  fencing token of the hold (Redlock: the quorum's token), "0" when unknown
-- ARGV[4]  how long the token floor lives, in ms
-- ARGV[5]  "r" read, "w" write
-- ARGV[6]  "one" to give back one hold; "all" to drop every hold of the caller on this side
--          (an acquire whose outcome is unknown or that was cancelled, a closing client)
--
-- Returns  n > 0  still held by the caller with n holds left
--          0      released; the hold's token was published on ARGV[2]
--          -1     the caller does not hold this side (lease expired, or force-released);
--                 nothing was changed

-- @include lib/tokens.lua
-- @include lib/holds.lua
-- @include lib/rw_state.lua
-- @include lib/pubsub.lua

local owner, mode, all = ARGV[1], ARGV[5], ARGV[6] == 'all'
local now = server_now()
local s = rw_state(now)
local token
if mode == 'w' then
  if s.writer ~= owner or s.foreign then
    return -1
  end
  if not all then
    local count = redis.call('HINCRBY', KEYS[1], 'c', -1)
    if count > 0 then
      return count
    end
  end
  token = redis.call('HGET', KEYS[1], 't')
  redis.call('HDEL', KEYS[1], 'o', 'c', 't', 'h', 'e')
else
  local field = 'r:' .. owner
  local entry = redis.call('HGET', KEYS[1], field)
  if not entry then
    return -1
  end
  local count, ends, held_token, who = string.match(entry, '^(%d+):(%d+):(%d+):(.*)$')
  count = tonumber(count) - 1
  if count > 0 and not all then
    redis.call('HSET', KEYS[1], field, count .. ':' .. ends .. ':' .. held_token .. ':' .. who)
    return count
  end
  token = held_token
  redis.call('HDEL', KEYS[1], field)
end
local released = fmt(math.max(tonumber(token), tonumber(ARGV[3])))
raise_floor(KEYS[2], released, ARGV[4])
if tonumber(s.max_token or '0') < tonumber(released) then
  redis.call('HSET', KEYS[1], 'm', released)
end
rw_settle(now)
publish(ARGV[2], released)
return 0
