package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the reentrant lock on one Redis must do beyond {@link LockContractTest}: a refused try leaves
 * no subscription, no conditions, input checks, a key of another type, key prefixes, listing.
 */
class ReentrantLockTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    /**
     * What an uncontended lock()/unlock() pair asks of Redis: two script calls, and inside them ten
     * commands: the free check, the queue head (a queued client is never passed), the clock and
     * the token floor (tokens that survive a failover), the hash and its lease; the release's read,
     * queue head (a queued waiter gets the lock), delete and wake-up. docs/benchmarks.md counts on it.
     */
    @Test
    void anUncontendedPairIsTwoScriptCallsOfTenCommands() {
        DistributedLock lock = servers.newClient().getLock("pair-cost");
        // the thread's first acquisition also writes its client's holder record
        lock.lock();
        lock.unlock();
        Map<String, Long> before = CommandStats.all(servers.server());
        int pairs = 100;
        for (int i = 0; i < pairs; i++) {
            lock.lock();
            lock.unlock();
        }
        Map<String, Long> ran = new TreeMap<>();
        CommandStats.all(servers.server()).forEach((command, calls) -> {
            long delta = calls - before.getOrDefault(command, 0L);
            // the client's subscription for its loss notices, made in the background at its first
            // hold, may land inside the measured pairs on a busy machine
            if (delta > 0 && !command.equals("info") && !command.equals("subscribe")) {
                ran.put(command, delta);
            }
        });
        long n = pairs;
        assertThat(ran).as("commands run by %d pairs", pairs).containsExactlyInAnyOrderEntriesOf(Map.of(
                "evalsha", 2 * n, "hlen", n, "zrange", 2 * n, "time", n, "set", n, "hset", n, "pexpire", n,
                "hmget", n, "del", n, "publish", n));
    }

    @Test
    void busyLockIsFalseNotAnException() throws Exception {
        LockClient holder = servers.newClient();
        LockClient other = servers.newClient();
        holder.getLock("busy").lock();

        assertThat(other.getLock("busy").tryLock()).isFalse();
        assertThat(other.getLock("busy").tryLock(Duration.ofMillis(100), Duration.ofSeconds(5))).isFalse();
        assertThat(other.getLock("busy").tryAcquireAsync(Duration.ZERO).get(5, TimeUnit.SECONDS)).isEmpty();
        // the channel is left asynchronously once the last waiter of this client gives up
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                servers.server().command("PUBSUB", "NUMSUB", "dlock:{busy}:released").toString()).endsWith(", 0]"));
    }

    @Test
    void newConditionIsUnsupportedAndSaysWhy() {
        DistributedLock lock = servers.newClient().getLock("conditions");
        assertThatThrownBy(lock::newCondition)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("Condition");
    }

    @Test
    void badInputIsRejectedNamingTheValue() {
        LockClient client = servers.newClient();
        assertThatThrownBy(() -> client.getLock(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null");
        assertThatThrownBy(() -> client.getLock("  ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank");
        DistributedLock lock = client.getLock("input");
        assertThatThrownBy(() -> lock.lock(Duration.ofSeconds(-5))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT-5S");
        assertThatThrownBy(() -> lock.lock(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT0S");
        assertThatThrownBy(() -> lock.tryLock(Duration.ofSeconds(-1), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-1S");
        assertThatThrownBy(() -> lock.tryLock(Duration.ofDays(1), Duration.ofDays(400)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT9600H");
        assertThatThrownBy(() -> lock.tryLock(1, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unit");
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.standalone("http//nope:::"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("http//nope:::");
        assertThatThrownBy(() -> LockClient.builder().defaultLease(Duration.ofMillis(10)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT0.01S");
        assertThatThrownBy(() -> LockClient.builder().clientName("has space"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("has space");
        assertThatThrownBy(() -> LockClient.builder().keyPrefix("a").keyPrefix("b"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("keyPrefix");
    }

    @Test
    void keyOfAnotherTypeGetsAClearErrorNamingTheKey() {
        servers.server().command("SET", "dlock:{taken-by-string}", "hello");
        DistributedLock lock = servers.newClient().getLock("taken-by-string");
        assertThatThrownBy(lock::tryLock)
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("dlock:{taken-by-string}")
                .hasMessageContaining("another type");
        assertThatThrownBy(lock::forceUnlock).isInstanceOf(LockBackendException.class);
        assertThat(servers.server().command("GET", "dlock:{taken-by-string}")).isEqualTo("hello");
    }

    @Test
    void keyPrefixSeparatesNamespaces() throws Exception {
        LockClient a = servers.newClient(builder -> builder.keyPrefix("app-a:"));
        LockClient b = servers.newClient(builder -> builder.keyPrefix("app-b:"));
        a.getLock("shared-name").lock();
        assertThat(b.getLock("shared-name").tryLock()).isTrue();
        assertThat(servers.server().keys("*{*")).containsExactly("app-a:{shared-name}", "app-b:{shared-name}");
    }

    @Test
    void listLocksShowsHeldLocksMatchingThePattern() throws Exception {
        LockClient client = servers.newClient(builder -> builder.clientName("lister"));
        client.getLock("orders-1").lock();
        client.getLock("orders-2").lock(Duration.ofSeconds(30));
        client.getLock("billing").lock();

        assertThat(client.listLocks("orders-*")).extracting(LockInfo::name).containsExactly("orders-1", "orders-2");
        assertThat(client.listLocks("*")).hasSize(3).allSatisfy(info -> {
            assertThat(info.holder()).hasValueSatisfying(h -> assertThat(h.clientName()).isEqualTo("lister"));
            assertThat(info.remainingLease()).isPositive();
        });
        assertThatThrownBy(() -> client.listLocks("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aHeldLockStoresOwnerAndTokenOnlyAndItsHolderComesFromTheClientRecord() throws Exception {
        LockClient client = servers.newClient(builder -> builder.clientName("compact"));
        DistributedLock lock = client.getLock("compact");
        AtomicReference<LockInfo> seen = new AtomicReference<>();
        Thread holder = new Thread(() -> {
            lock.lock();
            lock.lock();
            assertThat(fields("dlock:{compact}")).containsOnlyKeys("o", "t", "c").containsEntry("c", "2");
            lock.unlock();
            assertThat(fields("dlock:{compact}")).as("one hold: owner and token, no count, no holder description")
                    .containsOnlyKeys("o", "t");
            seen.set(client.getLock("compact").info());
            lock.unlock();
        }, "compact-holder");
        holder.start();
        holder.join(30_000);

        assertThat(seen.get().holdCount()).isEqualTo(1);
        assertThat(seen.get().holder()).hasValueSatisfying(who -> {
            assertThat(who.clientName()).isEqualTo("compact");
            assertThat(who.thread()).isEqualTo("compact-holder");
            assertThat(who.pid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(who.host()).isNotBlank();
        });
        assertThat(servers.server().keys("dlock:client:*")).singleElement().satisfies(record ->
                assertThat((Long) servers.server().command("PTTL", record)).as("the record expires")
                        .isGreaterThan(Duration.ofMinutes(9).toMillis()));
    }

    @Test
    void aClientRecordLostWithTheServersDataShowsTheClientIdUntilTheWatchdogWritesItBack() throws Exception {
        // a renewal round every 500 ms
        LockClient client = servers.newClient(builder -> builder.clientName("orphan")
                .defaultLease(Duration.ofMillis(1500)).commandTimeout(Duration.ofMillis(400)));
        DistributedLock lock = client.getLock("orphan");
        lock.lock(Duration.ofMinutes(1));
        DistributedLock renewed = client.getLock("orphan-renewed");
        renewed.lock();
        for (String record : servers.server().keys("dlock:client:*")) {
            servers.server().command("DEL", record);
        }
        String holderThread = Thread.currentThread().getName();
        DistributedLock seen = servers.newClient().getLock("orphan");
        LockInfo info = seen.info();
        if (info.holder().orElseThrow().clientName().equals("orphan")) {
            // a round wrote it back already: nothing to see of the gap
            return;
        }
        assertThat(info.isLocked()).isTrue();
        assertThat(info.holder()).hasValueSatisfying(who -> assertThat(who.clientName()).endsWith("(no record)"));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(seen.info().holder())
                .hasValueSatisfying(who -> {
                    assertThat(who.clientName()).isEqualTo("orphan");
                    assertThat(who.thread()).isEqualTo(holderThread);
                }));
        lock.unlock();
        renewed.unlock();
    }

    @Test
    void threadsThatHoldNothingLeaveTheClientRecord() throws Exception {
        LockClient client = servers.newClient(builder -> builder.defaultLease(Duration.ofMillis(1500))
                .commandTimeout(Duration.ofMillis(400)));
        DistributedLock lock = client.getLock("kept");
        lock.lock();
        for (int i = 0; i < 5; i++) {
            Thread passing = new Thread(() -> {
                DistributedLock brief = client.getLock("brief");
                brief.lock();
                brief.unlock();
            }, "passing-" + i);
            passing.start();
            passing.join(30_000);
        }
        String record = servers.server().keys("dlock:client:*").get(0);
        assertThat(threadFields(record)).hasSizeGreaterThanOrEqualTo(2);
        // once the lease (1.5 s) has passed since they asked, the watchdog's rounds leave only the holder
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(threadFields(record)).hasSize(1));
        assertThat(seenThreadOf(client, "kept")).isEqualTo(Thread.currentThread().getName());
        lock.unlock();
    }

    private static List<String> threadFields(String record) {
        return fields(record).keySet().stream().filter(field -> field.startsWith("t:")).toList();
    }

    private static String seenThreadOf(LockClient client, String name) {
        return client.getLock(name).info().holder().orElseThrow().thread();
    }

    private static Map<String, String> fields(String key) {
        List<?> flat = (List<?>) servers.server().command("HGETALL", key);
        Map<String, String> fields = new HashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            fields.put(String.valueOf(flat.get(i)), String.valueOf(flat.get(i + 1)));
        }
        return fields;
    }
}
