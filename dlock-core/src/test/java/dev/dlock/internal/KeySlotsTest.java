package dev.dlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.internal.redis.KeySlots;
import dev.dlock.internal.redis.Scripts;
import dev.dlock.internal.redis.TokenFloors;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** dlock's slot computation and per-slot floor tags against CLUSTER KEYSLOT of a real cluster-enabled server. */
class KeySlotsTest {

    private static RedisServer server;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;

    @BeforeAll
    static void start() {
        server = RedisServer.start("--cluster-enabled", "yes");
        client = RedisClient.create(server.uri());
        connection = client.connect();
    }

    @AfterAll
    static void stop() {
        if (connection != null) {
            connection.close();
        }
        if (client != null) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
        if (server != null) {
            server.close();
        }
    }

    /** CLUSTER KEYSLOT of every key, pipelined. */
    private static List<Long> serverSlots(List<String> keys) throws Exception {
        RedisAsyncCommands<String, String> commands = connection.async();
        List<RedisFuture<Long>> replies = new ArrayList<>();
        for (String key : keys) {
            replies.add(commands.clusterKeyslot(key));
        }
        List<Long> slots = new ArrayList<>();
        for (RedisFuture<Long> reply : replies) {
            slots.add(reply.get(10, TimeUnit.SECONDS));
        }
        return slots;
    }

    @Test
    void everySlotHasAFloorTagThatTheServerPutsInThatSlot() throws Exception {
        List<String> floorKeys = new ArrayList<>();
        Set<String> tags = new HashSet<>();
        for (int slot = 0; slot < KeySlots.SLOTS; slot++) {
            String tag = KeySlots.tagOf(slot);
            assertThat(tag.length()).as("tag of slot %d", slot).isBetween(1, 4);
            tags.add(tag);
            floorKeys.add("dlock:token-floor:{" + tag + "}");
        }
        assertThat(tags).hasSize(KeySlots.SLOTS);
        List<Long> slots = serverSlots(floorKeys);
        for (int slot = 0; slot < KeySlots.SLOTS; slot++) {
            assertThat(slots.get(slot)).as(floorKeys.get(slot)).isEqualTo(slot);
        }
    }

    @Test
    void lockKeysAndTheirFloorsShareTheSlotTheServerComputes() throws Exception {
        List<String> names = new ArrayList<>(List.of("orders", "a", "ünïcødé-名前", "with}brace", "}leading", "{inner}",
                "x{y}z", " spaced name ", "emoji-\uD83D\uDD12"));
        Random random = new Random(42);
        for (int i = 0; i < 2000; i++) {
            StringBuilder name = new StringBuilder();
            int length = 1 + random.nextInt(20);
            for (int c = 0; c < length; c++) {
                name.append((char) (32 + random.nextInt(400)));
            }
            names.add(name.toString());
        }
        TokenFloors floors = new TokenFloors("dlock:", Duration.ofMinutes(10), true);
        List<String> keys = new ArrayList<>();
        for (String name : names) {
            LockTarget target = LockTarget.of("dlock:", name);
            keys.add(target.key());
            keys.add(floors.of(target).key());
            keys.add(Scripts.queueKey(target));
        }
        List<Long> slots = serverSlots(keys);
        for (int i = 0; i < keys.size(); i += 3) {
            assertThat((long) KeySlots.slot(keys.get(i))).as("slot of %s", keys.get(i)).isEqualTo(slots.get(i));
            assertThat(slots.get(i + 1)).as("floor %s of %s", keys.get(i + 1), keys.get(i)).isEqualTo(slots.get(i));
            if (!names.get(i / 3).startsWith("}")) {
                // a name starting with '}' leaves an empty hash tag: each key is then hashed whole
                assertThat(slots.get(i + 2)).as("queue of %s", keys.get(i)).isEqualTo(slots.get(i));
            }
        }
        assertThat(new TokenFloors("dlock:", Duration.ofMinutes(10), false).of(LockTarget.of("dlock:", "x")).key())
                .isEqualTo("dlock:token-floor");
    }
}
