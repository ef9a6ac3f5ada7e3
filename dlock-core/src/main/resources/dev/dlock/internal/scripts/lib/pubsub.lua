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
