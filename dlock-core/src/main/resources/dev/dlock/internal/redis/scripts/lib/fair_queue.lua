-- lib/fair_queue.lua: the fair lock's waiter queue, included by the fair_*.lua scripts after
-- lib/tokens.lua.
--
-- KEYS[2]  <prefix>{name}:queue    sorted set: waiter id, scored by its ticket (request order)
-- KEYS[3]  <prefix>{name}:waiters  hash: waiter id -> "deadline:lease:holder", where deadline is
--          the server time (ms) by which the waiter must ask again or be dropped, lease (ms) is
--          what a handoff grants it, holder is its holder description
-- Both keys expire with the longest deadline in them, so they never outlive their last waiter.

local function waiter_entry(waiter)
  local entry = redis.call('HGET', KEYS[3], waiter)
  if not entry then
    return nil
  end
  local deadline, lease, holder = string.match(entry, '^(%d+):(%d+):(.*)$')
  return tonumber(deadline), tonumber(lease), holder
end

local function leave_queue(waiter)
  redis.call('ZREM', KEYS[2], waiter)
  redis.call('HDEL', KEYS[3], waiter)
end

-- Drops waiters at the head whose deadline has passed (their process died or stopped asking);
-- returns the first live waiter's id, deadline, lease and holder, or nil when no one waits. With
-- nobody queued it costs one call, and the clock is not read.
local function live_head()
  while true do
    local first = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
    if not first then
      return nil
    end
    local deadline, lease, holder = waiter_entry(first)
    if deadline and deadline > server_now() then
      return first, deadline, lease, holder
    end
    leave_queue(first)
  end
end

-- Queues the waiter or refreshes its deadline, keeping its place: the ticket given (agreed across
-- Redlock nodes), else the one it has here, else a new one behind everyone (server µs, strictly
-- increasing, so a single node orders waiters by arrival). Returns the ticket.
local function join_queue(waiter, ticket, now, timeout, lease, holder)
  if not ticket or ticket <= 0 then
    ticket = tonumber(redis.call('ZSCORE', KEYS[2], waiter))
  end
  if not ticket then
    ticket = time_us()
    local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')[2]
    if last and tonumber(last) >= ticket then
      ticket = tonumber(last) + 1
    end
  end
  redis.call('ZADD', KEYS[2], fmt(ticket), waiter)
  redis.call('HSET', KEYS[3], waiter, fmt(now + timeout) .. ':' .. fmt(lease) .. ':' .. holder)
  -- the two keys always get the same expiry (and have the same members), so one PTTL tells both
  if redis.call('PTTL', KEYS[2]) < timeout then
    redis.call('PEXPIRE', KEYS[2], timeout)
    redis.call('PEXPIRE', KEYS[3], timeout)
  end
  return ticket
end
