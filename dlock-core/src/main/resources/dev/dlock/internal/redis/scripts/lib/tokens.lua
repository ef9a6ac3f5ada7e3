-- lib/tokens.lua: server time, fencing tokens and the token floor: the one rule for them,
-- included by every script that reads the time, issues or releases a token.
-- The token floor (a string key, see TokenFloors) is the highest token granted lately where this
-- lock lives (and on Redlock also released): every grant raises it in the same script, so a
-- replica that receives the grant receives the floor with it, and a promoted replica whose clock
-- is behind still issues tokens above every token granted before the failover.
-- Every number that goes back to Redis is formatted with %.0f: Lua would print a µs timestamp in
-- exponent notation and lose its last digits.

local function fmt(number)
  return string.format('%.0f', number)
end

-- The server's TIME in microseconds, as a number (exact: far below 2^53), read once per script
-- call: every comparison, ticket and token of one call sees the same instant, for one Redis call.
local cached_us
local function time_us()
  if not cached_us then
    local now = redis.call('TIME')
    cached_us = tonumber(now[1]) * 1000000 + tonumber(now[2])
  end
  return cached_us
end

-- The same instant in milliseconds (lease ends and waiter deadlines are on this clock).
local function server_now()
  return math.floor(time_us() / 1000)
end

-- The server's TIME in microseconds, as a decimal string: a message no other release repeats.
local function now_us()
  return fmt(time_us())
end

-- Remember a granted (or, on Redlock, released) token in the floor, so that the next holder's
-- token exceeds it even where the clock is behind the one that issued it; see docs/design.md.
-- One call in the common case: the floor is set to the token and its old value read in the same
-- SET (GET option); only a floor that was higher is written back. No-op without a floor key.
local function raise_floor(floor_key, token, ttl_ms)
  if floor_key then
    local floor = tonumber(redis.call('SET', floor_key, fmt(tonumber(token)), 'PX', ttl_ms, 'GET') or '0')
    if floor > tonumber(token) then
      redis.call('SET', floor_key, fmt(floor), 'PX', ttl_ms)
    end
  end
end

-- The token of a grant, as a decimal string: above `previous` (a decimal string or nil), above
-- the token floor when floor_key is given, and at least the server's TIME in µs; the floor is set
-- to it in the same script. The clock is ahead of the floor nearly always, so the floor is set to
-- the clock's token and its old value read in one SET (GET option); only when the old floor was
-- not below it does the token become floor + 1, written over it.
local function grant_token(previous, floor_key, ttl_ms)
  local token = math.max(time_us(), tonumber(previous or '0') + 1)
  if floor_key then
    local floor = tonumber(redis.call('SET', floor_key, fmt(token), 'PX', ttl_ms, 'GET') or '0')
    if floor >= token then
      token = floor + 1
      redis.call('SET', floor_key, fmt(token), 'PX', ttl_ms)
    end
  end
  return fmt(token)
end
