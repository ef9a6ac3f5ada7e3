-- fenced_release.lua: the fenced quorum floor's release (RedlockScriptFloor): the owner's key is
-- deleted, and the node's floor raised to the quorum's token when that is above the node's own,
-- as dlock's release.lua does over Redlock. No hand-over, no wake-up.
-- KEYS[1]: the lock's key (value "<owner>\t<token>", see fenced_acquire.lua)
-- KEYS[2]: the node's token floor
-- ARGV[1]: owner id
-- ARGV[2]: the quorum's token (the highest the granting nodes gave)
-- ARGV[3]: how long the floor lives, in milliseconds
-- returns: 1 released, 0 not the owner (nothing changed)

local held = redis.call('GET', KEYS[1])
local prefix = ARGV[1] .. '\t'
if not held or string.sub(held, 1, #prefix) ~= prefix then
  return 0
end
redis.call('DEL', KEYS[1])
if tonumber(ARGV[2]) > tonumber(string.sub(held, #prefix + 1)) then
  local floor = tonumber(redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3], 'GET') or '0')
  if floor > tonumber(ARGV[2]) then
    redis.call('SET', KEYS[2], string.format('%.0f', floor), 'PX', ARGV[3])
  end
end
return 1
