-- lib/rw_state.lua: the read-write lock's hash, included by the rw_*.lua scripts (after
-- lib/tokens.lua and lib/holds.lua).
--
-- KEYS[1]  <prefix>{name}, a hash:
--          o c t h e   the writer: owner id, hold count, token, holder, lease end (server ms)
--          r:<owner>   a reader: "count:leaseEnd:token:holder"
--          w           a writer waiting: "deadline:waiterId"; new readers wait while it lasts
--          m           the highest token handed out in this hash
--          n           present: the r: fields are a semaphore's permits (lib/semaphore_state.lua), not
--                      readers; a reader is refused while any permit is live, a writer waits for them
-- Each hold has its own lease end (Redis 7.0 has no per-field TTL); the key expires with the
-- latest lease end or waiting deadline in it, so it never outlives its last hold.
-- A hash written by acquire.lua (a reentrant or fair lock of the same name) has o c t h and no e:
-- it counts as a writer ("foreign") until the key's own TTL, and these scripts never change it.

-- Reads the hash, deletes the holds and the waiting mark that have expired, and returns what is
-- live: writer, writer_end (nil: no TTL), foreign, readers (count), first_reader_end, waiting,
-- waiting_end, max_token, last_end (the latest end of anything this script family manages),
-- semaphore (true while the live r: fields are a semaphore's permits).
local function rw_state(now)
  local s = {readers = 0, last_end = 0, foreign = false}
  local fields = redis.call('HGETALL', KEYS[1])
  local expired = {}
  for i = 1, #fields, 2 do
    local field, value = fields[i], fields[i + 1]
    if string.sub(field, 1, 2) == 'r:' then
      local lease_end = tonumber(string.match(value, '^%d+:(%d+):'))
      if lease_end <= now then
        expired[#expired + 1] = field
      else
        s.readers = s.readers + 1
        s.first_reader_end = math.min(s.first_reader_end or lease_end, lease_end)
        s.last_end = math.max(s.last_end, lease_end)
      end
    elseif field == 'o' then
      s.writer = value
    elseif field == 'e' then
      s.writer_end = tonumber(value)
    elseif field == 'w' then
      local deadline, waiter = string.match(value, '^(%d+):(.*)$')
      if tonumber(deadline) <= now then
        expired[#expired + 1] = 'w'
      else
        s.waiting, s.waiting_end = waiter, tonumber(deadline)
        s.last_end = math.max(s.last_end, s.waiting_end)
      end
    elseif field == 'm' then
      s.max_token = value
    elseif field == 'n' then
      s.semaphore = true
    end
  end
  if s.semaphore and s.readers == 0 then
    -- a permit count outliving its permits: gone, so that a reader taken now is not seen as a permit
    expired[#expired + 1] = 'n'
    s.semaphore = nil
  end
  if s.writer and not s.writer_end then
    s.foreign = true
    local pttl = redis.call('PTTL', KEYS[1])
    if pttl >= 0 then
      s.writer_end = now + pttl
    end
  elseif s.writer and s.writer_end <= now then
    for _, field in ipairs({'o', 'c', 't', 'h', 'e'}) do
      expired[#expired + 1] = field
    end
    s.writer, s.writer_end = nil, nil
  elseif s.writer then
    s.last_end = math.max(s.last_end, s.writer_end)
  end
  delete_fields(KEYS[1], expired)
  return s
end

-- After a change: the key expires with the latest lease end or waiting deadline in it, or is
-- deleted when nothing is held or waited for. A foreign writer's key is left alone.
local function rw_settle(now)
  local s = rw_state(now)
  if s.foreign then
    return
  end
  if s.last_end <= now then
    redis.call('DEL', KEYS[1])
  else
    redis.call('PEXPIRE', KEYS[1], s.last_end - now)
  end
end

-- Milliseconds until `deadline` for a refusal's retry hint; -1 when there is no deadline (a key
-- without TTL, not written by dlock).
local function retry_until(deadline, now)
  if not deadline then
    return -1
  end
  return math.max(0, deadline - now)
end
