-- lib/next_waiter.lua: the reentrant lock's handoff to its first queued waiter (one Redis: its
-- waiters are queued with the lock, see docs/design.md), included by acquire.lua, release.lua,
-- handoff.lua, abandon.lua and leave.lua after lib/tokens.lua, lib/fair_queue.lua (the queue,
-- KEYS[2] and KEYS[3]) and lib/pubsub.lua. Over Redlock nobody is queued and it hands nothing.

-- Hands the lock KEYS[1] to the first live queued waiter, unless that waiter is `except`: owner =
-- its waiter id, hold count 1, a token above `released` and the floor (which it raises), and
-- its lease or what is left of its deadline, whichever is shorter (a
-- waiter that died while queued holds the lock up no longer than that). Its entry goes, and the
-- waiter is told (lib/pubsub.lua's notify_waiter: on its client's channel; on a Cluster on the
-- lock's channel, where only that waiter acts on it); it takes the lock over without another
-- call. Lapsed entries at the head are dropped on the way. Returns the waiter's id when the lock
-- was handed over; false (nothing changed) when no live waiter is queued, or the first is `except`.
local function hand_to_first_waiter(released, channel, floor_key, floor_ttl, except)
  -- nobody queued (always so over Redlock): one call, without reading the clock
  if redis.call('EXISTS', KEYS[2]) == 0 then
    return false
  end
  local now = server_now()
  local head, deadline, lease = live_head(now)
  if not head or head == except then
    return false
  end
  local token = grant_token(released, floor_key, floor_ttl)
  -- a fresh hold in acquire.lua's layout: owner and token; a count left by a re-entry goes
  redis.call('HDEL', KEYS[1], 'c')
  redis.call('HSET', KEYS[1], 'o', head, 't', token)
  redis.call('PEXPIRE', KEYS[1], math.min(lease, deadline - now))
  leave_queue(head)
  notify_waiter(channel, head, token)
  return head
end

-- The lock KEYS[1] is let go with token `released`: it goes to the first live queued waiter, else
-- the hash is deleted and the release published (the token as message: a waiter subscribed on
-- several Redlock nodes wakes once per release).
local function pass_on(released, channel, floor_key, floor_ttl)
  if not hand_to_first_waiter(released, channel, floor_key, floor_ttl, nil) then
    redis.call('DEL', KEYS[1])
    publish(channel, released)
  end
end
