-- forget_holder.lua: a client that closes drops its record (record_holder.lua) after its last
-- holds were released, so that a closed client leaves nothing behind.
--
-- KEYS[1]  the client record <prefix>client:<client id>
--
-- Returns  1  dropped
--          0  there was none

return redis.call('DEL', KEYS[1])
