-- inspect.lua: read a lock's state in one round trip, for isLocked, info, status and monitoring.
-- Understands every kind: the exclusive holder (reentrant or fair lock, or a read-write lock's
-- writer) and a read-write lock's readers (lib/rw_state.lua), without changing anything.
--
-- KEYS[1]  the lock hash <prefix>{name}
-- ARGV[1]  optional view: "w" the writer only, "r" the readers only; otherwise the holder,
--          else the readers
--
-- Returns  {}                                              nothing held (in this view)
--          {owner, holdCount, token, holder, pttl, heldMs}  held; token is a decimal string, pttl =
--                                                           ms left on the lease (-1: none), heldMs
--                                                           = ms since the hold began
--          for readers: owner = "readers", holdCount = every read hold, token = the highest,
--          holder = the reader with the smallest owner id, pttl = until the last read lease ends,
--          heldMs = since the oldest live read hold began
--
-- A hold began when its token was granted: a fresh token is at least the server's TIME in µs
-- (lib/tokens.lua), so this server's clock now minus the token, never below zero, is how long the
-- hold has lasted; a re-entry keeps the token, so it does not restart the count.

-- @include lib/tokens.lua

local view = ARGV[1] or ''

local function held_ms(token)
  return math.max(0, server_now() - math.floor(tonumber(token) / 1000))
end

if view ~= 'r' then
  local fields = redis.call('HMGET', KEYS[1], 'o', 'c', 't', 'h', 'e')
  if fields[1] ~= false then
    if fields[5] == false then
      return {fields[1], tonumber(fields[2] or '1'), fields[3], fields[4] or '', redis.call('PTTL', KEYS[1]),
              held_ms(fields[3])}
    end
    local left = tonumber(fields[5]) - server_now()
    if left > 0 then
      return {fields[1], tonumber(fields[2] or '1'), fields[3], fields[4] or '', left, held_ms(fields[3])}
    end
  end
  if view == 'w' then
    return {}
  end
end

local holds, token, oldest_token, first_owner, first_holder, last_end = 0, 0, nil, nil, '', 0
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  if string.sub(fields[i], 1, 2) == 'r:' then
    local count, ends, held_token, who = string.match(fields[i + 1], '^(%d+):(%d+):(%d+):(.*)$')
    if tonumber(ends) > server_now() then
      local reader = string.sub(fields[i], 3)
      holds = holds + tonumber(count)
      token = math.max(token, tonumber(held_token))
      oldest_token = math.min(oldest_token or tonumber(held_token), tonumber(held_token))
      last_end = math.max(last_end, tonumber(ends))
      if first_owner == nil or reader < first_owner then
        first_owner, first_holder = reader, who
      end
    end
  end
end
if holds == 0 then
  return {}
end
return {'readers', holds, fmt(token), first_holder, last_end - server_now(), held_ms(oldest_token)}
