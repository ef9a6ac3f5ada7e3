-- rw_acquire.lua: take the read or the write side of a read-write lock, or re-enter it.
--
-- KEYS[1]  the lock hash <prefix>{name} (layout in lib/rw_state.lua)
-- KEYS[2]  optional: the token floor (see lib/tokens.lua); fresh tokens start above it and raise it
-- ARGV[1]  owner id of this attempt (fresh for every attempt)
-- ARGV[2]  lease in milliseconds (positive integer)
-- ARGV[3]  holder description stored for inspection
-- ARGV[4]  "1" when the caller believes it holds this side already (re-entry), else "0"
-- ARGV[5]  "r" read, "w" write
-- ARGV[6]  write: the waiter id of the acquisition (the same for all its attempts), else ""
-- ARGV[7]  write: waiter timeout in ms, how long a waiting mark lasts unless renewed
-- ARGV[8]  write: "1" when the caller waits if refused, "0" for a single try
-- ARGV[9]  read: the owner id of the caller's own write hold (downgrade), else ""
-- ARGV[10] how long the token floor lives after this grant, in ms (with KEYS[2])
--
-- Returns  {1, token, holdCount}  granted; token is a decimal string
--          {0, retryAfterMs}       refused; ms until the hold or mark in the way ends (-1: none)
--          {-1}                    re-entry asked, but the caller no longer holds this side
--
-- Policy: many readers or one writer; writers are preferred. A writer that is refused and will
-- wait leaves a mark (w) that refuses new readers until it gets the lock, gives up, or stops
-- renewing the mark for the waiter timeout; so a stream of readers cannot starve it. Read
-- re-entries and the writer's own reads (downgrade) are never refused by the mark. Every fresh
-- hold, read or write, gets a token above every token handed out before for this name. Every other
-- kind of lock of the same name excludes both sides: a reentrant or fair lock counts as a writer,
-- a semaphore's permits refuse readers and hold writers back as readers would.

-- @include lib/tokens.lua
-- @include lib/holds.lua
-- @include lib/rw_state.lua

local owner, lease, holder = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local reentry, mode = ARGV[4] == '1', ARGV[5]
local now = server_now()
local s = rw_state(now)
local lease_end = now + lease

if mode == 'w' then
  if reentry then
    if s.writer ~= owner or s.foreign then
      return {-1}
    end
    local count = redis.call('HINCRBY', KEYS[1], 'c', 1)
    -- a re-entry may extend the lease but never shortens the outer hold's
    if s.writer_end < lease_end then
      redis.call('HSET', KEYS[1], 'e', fmt(lease_end))
    end
    rw_settle(now)
    return {1, redis.call('HGET', KEYS[1], 't'), count}
  end
  local blocked, blocked_until = false, nil
  if s.writer and s.writer ~= owner then
    blocked, blocked_until = true, s.writer_end
  elseif s.readers > 0 then
    blocked, blocked_until = true, s.first_reader_end
  end
  if blocked then
    if ARGV[8] == '1' and not s.foreign then
      redis.call('HSET', KEYS[1], 'w', fmt(now + tonumber(ARGV[7])) .. ':' .. ARGV[6])
      rw_settle(now)
    end
    return {0, retry_until(blocked_until, now)}
  end
  local token = grant_token(s.max_token, KEYS[2], ARGV[10])
  redis.call('HSET', KEYS[1], 'o', owner, 'c', 1, 't', token, 'h', holder, 'e', fmt(lease_end), 'm', token)
  if s.waiting == ARGV[6] then
    redis.call('HDEL', KEYS[1], 'w')
  end
  rw_settle(now)
  return {1, token, 1}
end

local field = 'r:' .. owner
if reentry then
  local entry = redis.call('HGET', KEYS[1], field)
  if not entry then
    return {-1}
  end
  local count, ends, token, who = string.match(entry, '^(%d+):(%d+):(%d+):(.*)$')
  count = tonumber(count) + 1
  redis.call('HSET', KEYS[1], field, count .. ':' .. fmt(math.max(tonumber(ends), lease_end)) .. ':' .. token .. ':' .. who)
  rw_settle(now)
  return {1, token, count}
end
if s.semaphore then
  -- the permits of a semaphore of the same name: they exclude readers as a writer would
  return {0, retry_until(s.first_reader_end, now)}
end
local downgrade = ARGV[9] ~= '' and s.writer == ARGV[9]
if s.writer and not downgrade then
  return {0, retry_until(s.writer_end, now)}
end
if s.waiting and not downgrade then
  return {0, retry_until(s.waiting_end, now)}
end
local token = grant_token(s.max_token, KEYS[2], ARGV[10])
redis.call('HSET', KEYS[1], field, '1:' .. fmt(lease_end) .. ':' .. token .. ':' .. holder, 'm', token)
rw_settle(now)
return {1, token, 1}
