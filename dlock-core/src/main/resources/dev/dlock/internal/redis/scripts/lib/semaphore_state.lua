-- lib/semaphore_state.lua: a semaphore's hash, included by the semaphore_*.lua scripts (after
-- lib/tokens.lua and lib/holds.lua).
--
-- KEYS[1]  <prefix>{name}, a hash:
--          n           the permit count, fixed while anyone holds a permit
--          m           the highest token handed out in this hash
--          r:<owner>   one permit: "1:leaseEnd:token:holder", a read-write lock reader's layout,
--                      so that renew.lua, inspect.lua and force_release.lua understand it
--          s:<slot>    the owner of permit slot 0..n-1: over Redlock a permit is one slot held on a
--                      majority of the nodes (see QuorumStore), so that no slot has two holders
-- Each permit has its own lease end (Redis 7.0 has no per-field TTL); the key expires with the
-- latest lease end in it and is deleted with its last permit.
-- A hash with an owner field 'o' is a lock of another kind of the same name: the semaphore counts
-- it as full until the key's own TTL and never changes it.

-- Reads the hash, deletes the permits whose lease ended and the slots nobody holds any more, and
-- returns what is live: holders (owner -> {slot, token}), count, first_end, last_end, slots
-- (slot -> owner), permits (stored count or nil), max_token, foreign (nil, or ms left on a lock
-- of another kind: -1 without TTL).
local function semaphore_state(now)
  local s = {holders = {}, count = 0, last_end = 0, slots = {}}
  local fields = redis.call('HGETALL', KEYS[1])
  local expired = {}
  for i = 1, #fields, 2 do
    local field, value = fields[i], fields[i + 1]
    local kind = string.sub(field, 1, 2)
    if kind == 'r:' then
      local lease_end, token = string.match(value, '^%d+:(%d+):(%d+):')
      lease_end = tonumber(lease_end)
      if lease_end <= now then
        expired[#expired + 1] = field
      else
        s.holders[string.sub(field, 3)] = {token = token}
        s.count = s.count + 1
        s.first_end = math.min(s.first_end or lease_end, lease_end)
        s.last_end = math.max(s.last_end, lease_end)
      end
    elseif kind == 's:' then
      s.slots[tonumber(string.sub(field, 3))] = value
    elseif field == 'n' then
      s.permits = tonumber(value)
    elseif field == 'm' then
      s.max_token = value
    elseif field == 'o' then
      s.foreign = redis.call('PTTL', KEYS[1])
    end
  end
  for slot, owner in pairs(s.slots) do
    local holder = s.holders[owner]
    if holder then
      holder.slot = slot
    else
      expired[#expired + 1] = 's:' .. slot
      s.slots[slot] = nil
    end
  end
  delete_fields(KEYS[1], expired)
  return s
end
