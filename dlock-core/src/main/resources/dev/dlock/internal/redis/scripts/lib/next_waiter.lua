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
-- call. Lapsed entries at the head are dropped on the way. `counted`: the hash may hold a count
-- field (c), which the fresh hold must not inherit; false when the caller read it absent.
-- Returns the waiter's id when the lock was handed over; else false (nothing changed) and whether
-- waiters are still queued (true: the first is `except`; false: none, or every entry had lapsed).
local function hand_to_first_waiter(released, channel, floor_key, floor_ttl, except, counted)
  local head, deadline, lease = live_head()
  if not head then
    return false, false
  end
  if head == except then
    return false, true
  end
  local token = grant_token(released, floor_key, floor_ttl)
  if counted then
    -- a fresh hold in acquire.lua's layout: owner and token; a count left by a re-entry goes
    redis.call('HDEL', KEYS[1], 'c')
  end
  redis.call('HSET', KEYS[1], 'o', head, 't', token)
  redis.call('PEXPIRE', KEYS[1], math.min(lease, deadline - server_now()))
  leave_queue(head)
  notify_waiter(channel, head, token)
  return head
end

-- The lock KEYS[1] is let go with token `released`: it goes to the first live queued waiter, else
-- the hash is deleted and the release published (the token as message: a waiter subscribed on
-- several Redlock nodes wakes once per release). `queued`: false where waiters are never queued
-- (Redlock), which spares the look at the queue; `counted` as for hand_to_first_waiter.
local function pass_on(released, channel, floor_key, floor_ttl, queued, counted)
  if not (queued and hand_to_first_waiter(released, channel, floor_key, floor_ttl, nil, counted)) then
    redis.call('DEL', KEYS[1])
    publish(channel, released)
  end
end
