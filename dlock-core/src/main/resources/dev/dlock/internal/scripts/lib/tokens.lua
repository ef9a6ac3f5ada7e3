-- lib/tokens.lua: server time and fencing tokens, included by scripts that grant holds.
-- Every number that goes back to Redis is formatted with %.0f: Lua would print a µs timestamp in
-- exponent notation and lose its last digits.

local function fmt(number)
  return string.format('%.0f', number)
end

-- The server's TIME in milliseconds (lease ends and waiter deadlines are on this clock).
local function now_ms()
  local now = redis.call('TIME')
  return tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
end

-- The server's TIME in microseconds, as a decimal string: a message no other release repeats.
local function now_us()
  local now = redis.call('TIME')
  return fmt(tonumber(now[1]) * 1000000 + tonumber(now[2]))
end

-- A fencing token above `previous` (a decimal string or nil), above the node's token floor when
-- floor_key is given (Redlock), and at least the server's TIME in µs; as a decimal string.
local function fresh_token(previous, floor_key)
  local now = redis.call('TIME')
  local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
  local above = tonumber(previous or '0')
  if floor_key then
    above = math.max(above, tonumber(redis.call('GET', floor_key) or '0'))
  end
  if above >= token then
    token = above + 1
  end
  return fmt(token)
end

-- Redlock: remember a released token on this node, so that the next holder's token here exceeds
-- it even if this node's clock is behind the node that issued it; see docs/locks.md.
local function raise_floor(floor_key, token, ttl_ms)
  if floor_key then
    local floor = math.max(tonumber(redis.call('GET', floor_key) or '0'), tonumber(token))
    redis.call('SET', floor_key, fmt(floor), 'PX', ttl_ms)
  end
end
