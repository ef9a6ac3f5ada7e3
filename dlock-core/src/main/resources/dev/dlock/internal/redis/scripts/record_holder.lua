-- record_holder.lua: writes a client's record, which says who holds the locks whose owner ids
-- start with its client id: the reentrant lock's hash keeps only the owner id (acquire.lua), so
-- that each held lock costs Redis as few bytes as possible, and info(), status and list read the
-- holder's client, host, pid and thread from here (read_holder.lua).
--
-- KEYS[1]  the client record <prefix>client:<client id> (a hash): n = client name, h = host,
--          p = pid, t:<thread id> = thread name (thread ids in base 36, as in owner ids)
-- ARGV[1]  client name
-- ARGV[2]  host
-- ARGV[3]  pid
-- ARGV[4]  how long the record lives at least from now, in ms: longer than any lease of the
--          client's holds, which it renews (the watchdog) before that runs out
-- ARGV[5]  "1": the record is replaced (threads that no longer hold anything go), "0": added to
-- ARGV[6], ARGV[7], ...  optional pairs: thread id, thread name
--
-- Returns  1
--
-- The record's time to live is only ever extended: a write for a short lease must not cut short
-- the record of a hold with a long one.

local ttl = redis.call('PTTL', KEYS[1])
if ARGV[5] == '1' then
  redis.call('DEL', KEYS[1])
end
local fields = {'n', ARGV[1], 'h', ARGV[2], 'p', ARGV[3]}
for i = 6, #ARGV, 2 do
  fields[#fields + 1] = 't:' .. ARGV[i]
  fields[#fields + 1] = ARGV[i + 1]
end
-- in slices: Lua's unpack takes a few thousand values at most, and a client may have as many threads
for from = 1, #fields, 1000 do
  redis.call('HSET', KEYS[1], unpack(fields, from, math.min(from + 999, #fields)))
end
redis.call('PEXPIRE', KEYS[1], math.max(ttl, tonumber(ARGV[4])))
return 1
