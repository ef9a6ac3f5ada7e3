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
--
-- Returns  1  re-created
--          0  the key exists (ours or someone else's); nothing was changed
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'o', ARGV[1], 'c', ARGV[4], 't', ARGV[3], 'h', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
