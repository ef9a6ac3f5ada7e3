-- reassert.lua: Redlock only. Puts a held lock back on a node that lost its copy (restarted
-- without persistence, or its copy expired while the node was paused), so that the holder keeps
-- the lock on every live node and a node that comes back empty cannot hand it to someone else.
-- Sent only after a quorum of nodes renewed the hold, i.e. while the caller provably holds it.
--
-- KEYS[1]  the lock hash <prefix>{name}
-- ARGV[1]  owner id
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  fencing token of the hold
-- ARGV[4]  hold count
-- ARGV[5]  holder description
-- ARGV[6]  optional: "w" a read-write lock's writer, "r" one of its readers (layout in
--          lib/rw_state.lua); otherwise a reentrant or fair lock
--
-- Returns  1  re-created
--          0  the key holds something in the way (ours or someone else's); nothing was changed

-- @include lib/tokens.lua

local mode = ARGV[6] or ''
if mode == '' then
  if redis.call('EXISTS', KEYS[1]) == 1 then
    return 0
  end
  redis.call('HSET', KEYS[1], 'o', ARGV[1], 'c', ARGV[4], 't', ARGV[3], 'h', ARGV[5])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end

local lease_end = fmt(server_now() + tonumber(ARGV[2]))
if redis.call('HEXISTS', KEYS[1], 'o') == 1 then
  return 0
end
if mode == 'w' then
  local fields = redis.call('HKEYS', KEYS[1])
  for _, field in ipairs(fields) do
    if string.sub(field, 1, 2) == 'r:' then
      return 0
    end
  end
  redis.call('HSET', KEYS[1], 'o', ARGV[1], 'c', ARGV[4], 't', ARGV[3], 'h', ARGV[5], 'e', lease_end)
else
  if redis.call('HEXISTS', KEYS[1], 'r:' .. ARGV[1]) == 1 then
    return 0
  end
  redis.call('HSET', KEYS[1], 'r:' .. ARGV[1], ARGV[4] .. ':' .. lease_end .. ':' .. ARGV[3] .. ':' .. ARGV[5])
end
if tonumber(redis.call('HGET', KEYS[1], 'm') or '0') < tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[1], 'm', ARGV[3])
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1
