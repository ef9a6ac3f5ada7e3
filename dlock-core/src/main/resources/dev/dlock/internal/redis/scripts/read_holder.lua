-- read_holder.lua: who a holder is, from its client's record (record_holder.lua): joined by
-- info(), status and list with the owner id of a hold whose lock keeps no holder description.
--
-- KEYS[1]  the client record <prefix>client:<client id>, the client id being the owner id's
--          first part
-- ARGV[1]  the thread id, the owner id's second part (base 36)
--
-- Returns  {client name, host, pid, thread name}  ("" for a thread the record does not name)
--          {}                                     no record: the client has been gone longer than
--                                                 its holds' leases, or was never recorded here

local record = redis.call('HMGET', KEYS[1], 'n', 'h', 'p', 't:' .. ARGV[1])
if record[1] == false then
  return {}
end
return {record[1], record[2] or '', record[3] or '-1', record[4] or ''}
