-- inspect_holds.lua: every live hold of a name, for info(), status and list: the exclusive holder
-- (a reentrant or fair lock, a read-write lock's writer), each reader of a read-write lock, each
-- permit of a semaphore. Changes nothing.
--
-- KEYS[1]  the hash <prefix>{name}
--
-- Returns  {permits, owner, holdCount, token, holder, pttl, shared, owner, ...}: permits is the
--          semaphore's permit count ('n'), 0 when the name is not a semaphore; then six values per
--          hold: tokens are decimal strings, pttl = ms left on its lease (-1: none), shared = 1
--          for a reader or a permit, 0 for the exclusive holder. {0} when nothing is held.

-- @include lib/tokens.lua

local result = {0}
local fields = redis.call('HGETALL', KEYS[1])
local exclusive = {}
for i = 1, #fields, 2 do
  local field, value = fields[i], fields[i + 1]
  if string.sub(field, 1, 2) == 'r:' then
    local count, ends, token, who = string.match(value, '^(%d+):(%d+):(%d+):(.*)$')
    local left = tonumber(ends) - server_now()
    if left > 0 then
      for _, v in ipairs({string.sub(field, 3), tonumber(count), token, who, left, 1}) do
        result[#result + 1] = v
      end
    end
  elseif field == 'n' then
    result[1] = tonumber(value)
  elseif string.len(field) == 1 then
    exclusive[field] = value
  end
end
if exclusive.o then
  local left
  if exclusive.e then
    left = tonumber(exclusive.e) - server_now()
  else
    left = redis.call('PTTL', KEYS[1])
  end
  if left > 0 or left == -1 then
    for _, v in ipairs({exclusive.o, tonumber(exclusive.c or '1'), exclusive.t, exclusive.h or '', left, 0}) do
      result[#result + 1] = v
    end
  end
end
return result
