-- ring_handoff.lua: the raw handoff floor's release (RawHandoffFloor): the lock's key names its
-- next holder, and that holder's process is told on its own channel, in one script call, as
-- dlock's release hands the lock to the first queued waiter and publishes the grant.
-- KEYS[1]: the lock's key
-- ARGV[1]: the next holder (the ring member the lock is handed to)
-- ARGV[2]: that member's channel
-- ARGV[3]: the lease in milliseconds
-- returns: how many subscribers received the grant (0: nobody listens there any more)
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return redis.call('PUBLISH', ARGV[2], ARGV[1])
