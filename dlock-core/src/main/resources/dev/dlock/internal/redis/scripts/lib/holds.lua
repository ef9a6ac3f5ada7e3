-- lib/holds.lua: what the hashes that keep one field per hold share, included by the rw_*.lua and
-- semaphore_*.lua scripts (before their lib/*_state.lua).

-- Deletes the fields (expired holds, marks, slots) from the hash at `key`. In slices: Lua's
-- unpack takes a few thousand values at most.
local function delete_fields(key, fields)
  for i = 1, #fields, 500 do
    redis.call('HDEL', key, unpack(fields, i, math.min(i + 499, #fields)))
  end
end
