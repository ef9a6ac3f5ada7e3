-- lib/pubsub.lua: how a script wakes a lock's waiters and counts them, on one Redis (and on each
-- Redlock master): PUBLISH and PUBSUB NUMSUB. Included by every script that publishes or counts;
-- on Redis Cluster lib/pubsub_sharded.lua takes its place (see LuaScript.Variant).

-- Sends the message to the channel's subscribers.
local function publish(channel, message)
  redis.call('PUBLISH', channel, message)
end

-- How many connections are subscribed to the channel.
local function subscribers(channel)
  return redis.call('PUBSUB', 'NUMSUB', channel)[2]
end

-- Tells a holder's client that its hold was taken away (its holder channel <prefix>client:{id}).
local function notify_holder(channel, message)
  redis.call('PUBLISH', channel, message)
end

-- Tells a queued waiter that the lock (KEYS[1]) was handed to it, on its client's holder channel
-- <prefix>client:{<client id>} (the prefix is KEYS[1] up to its '{'; the client id is the waiter
-- id up to its first ':'), so that no other client wakes: "handoff\t<channel>\t<token>:<waiter id>",
-- which that client passes on to its waiters of the lock's channel.
local function notify_waiter(channel, waiter, token)
  local prefix = string.sub(KEYS[1], 1, string.find(KEYS[1], '{', 1, true) - 1)
  local client = string.match(waiter, '^([^:]+):')
  redis.call('PUBLISH', prefix .. 'client:{' .. client .. '}', 'handoff\t' .. channel .. '\t' .. token .. ':' .. waiter)
end
