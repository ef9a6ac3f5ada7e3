-- lib/pubsub_sharded.lua: lib/pubsub.lua for Redis Cluster, where a message must stay in the
-- shard that serves the lock's slot: SPUBLISH and PUBSUB SHARDNUMSUB. The channel shares the lock
-- key's hash tag, so it maps to the slot of the script's keys.

-- Sends the message to the channel's subscribers on this shard.
local function publish(channel, message)
  redis.call('SPUBLISH', channel, message)
end

-- How many connections are subscribed to the channel on this shard.
local function subscribers(channel)
  return redis.call('PUBSUB', 'SHARDNUMSUB', channel)[2]
end

-- A client's holder channel hashes to another slot than the lock, which a script on a Cluster
-- may not reach: the holder hears of a forced release at its next renewal instead.
local function notify_holder(channel, message)
end

-- Tells a queued waiter that the lock was handed to it: "<token>:<waiter id>" on the lock's channel
-- (its client's holder channel is in another slot); every waiter hears it, only that one acts.
local function notify_waiter(channel, waiter, token)
  redis.call('SPUBLISH', channel, token .. ':' .. waiter)
end
