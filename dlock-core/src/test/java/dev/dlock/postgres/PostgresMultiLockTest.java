package dev.dlock.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.LockHandle;
import dev.dlock.PostgresStore;
import dev.dlock.testing.PostgresServers;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A multi-lock on PostgreSQL takes all its names in one transaction: one function call per
 * acquire, counted by the server itself ({@code track_functions}), and all the names or none, also
 * while it waits.
 */
class PostgresMultiLockTest {

    @RegisterExtension
    static final PostgresServers postgres = PostgresServers.create("track_functions=pl");

    private static LockClient client() {
        return LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl())).build();
    }

    private static String sql(String query) {
        return postgres.server().sql(query);
    }

    /** Calls of the function of dlock's schema {@code schema}, as the server counted them. */
    private static long calls(String schema, String function) {
        return Long.parseLong(sql("SELECT coalesce(sum(calls), 0) FROM pg_stat_user_functions WHERE schemaname = '"
                + schema + "' AND funcname = '" + function + "'"));
    }

    /** Live holds of the lock name, and its waiters. */
    private static String rowsOf(String name) {
        String key = "dlock:{" + name + "}";
        return sql("SELECT (SELECT count(*) FROM dlock_hold WHERE name = '" + key + "' AND lease_end > clock_timestamp())"
                + " || ' held, ' || (SELECT count(*) FROM dlock_waiter WHERE name = '" + key + "') || ' queued'");
    }

    @Test
    void everyAcquireOfAMultiLockIsOneCallOfOneFunction() throws Exception {
        int acquires = 20;
        // a schema of this test's own: its functions are called by this test alone
        String schema = "round_trips";
        try (LockClient client = LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl()).schema(schema)).build()) {
            DistributedLock multi = client.getMultiLock("rt-c", "rt-a", "rt-b");
            for (int i = 0; i < acquires - 2; i++) {
                multi.lock();
                multi.unlock();
            }
            assertThat(multi.tryLock(1, TimeUnit.SECONDS)).isTrue();
            multi.unlock();
            multi.acquireAsync().get(10, TimeUnit.SECONDS).release();
        }
        // a backend reports its counts when idle or at its exit: the client closed its connections
        await().atMost(Duration.ofSeconds(30)).until(() -> calls(schema, "dlock_release") >= 3L * acquires);
        assertThat(calls(schema, "dlock_acquire_all")).as("one call per acquire of three names").isEqualTo(acquires);
        assertThat(calls(schema, "dlock_acquire")).as("no name taken on its own").isZero();
        assertThat(calls(schema, "dlock_release")).as("each name released on its own").isEqualTo(3L * acquires);
    }

    @Test
    void whileOneNameIsHeldElsewhereNoneOfTheOthersIsHeldOrQueued() throws Exception {
        try (LockClient holder = client(); LockClient other = client(); LockClient taker = client()) {
            DistributedLock b = holder.getLock("an-b");
            b.lock();
            long bToken = b.fencingToken();
            DistributedLock multi = taker.getMultiLock("an-a", "an-b", "an-c");

            assertThat(multi.tryLock()).isFalse();
            assertThat(multi.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
            assertThat(rowsOf("an-a") + ", " + rowsOf("an-b") + ", " + rowsOf("an-c"))
                    .as("after failed attempts").isEqualTo("0 held, 0 queued, 1 held, 0 queued, 0 held, 0 queued");

            CompletableFuture<Optional<LockHandle>> waiting = multi.tryAcquireAsync(Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(10)).until(() -> rowsOf("an-b").equals("1 held, 1 queued"));
            assertThat(rowsOf("an-a")).as("a while the multi-lock waits for b").isEqualTo("0 held, 0 queued");
            assertThat(rowsOf("an-c")).as("c while the multi-lock waits for b").isEqualTo("0 held, 0 queued");

            // c taken meanwhile: b's release hands b to the waiter, whose next attempt finds c busy
            // and gives b on instead of keeping it while it waits for c
            DistributedLock c = other.getLock("an-c");
            c.lock();
            b.unlock();
            await().atMost(Duration.ofSeconds(10)).until(() -> rowsOf("an-c").equals("1 held, 1 queued"));
            assertThat(rowsOf("an-b")).as("b while the multi-lock waits for c").isEqualTo("0 held, 0 queued");
            assertThat(rowsOf("an-a")).as("a while the multi-lock waits for c").isEqualTo("0 held, 0 queued");
            assertThat(waiting).isNotDone();

            c.unlock();
            LockHandle handle = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(handle.isValid()).isTrue();
            assertThat(handle.fencingToken()).isGreaterThan(bToken);
            assertThat(rowsOf("an-a") + ", " + rowsOf("an-b") + ", " + rowsOf("an-c"))
                    .isEqualTo("1 held, 0 queued, 1 held, 0 queued, 1 held, 0 queued");
            assertThat(holder.getLock("an-a").tryLock()).as("a is the multi-lock's").isFalse();
            handle.release();
            assertThat(sql("SELECT (SELECT count(*) FROM dlock_hold WHERE lease_end > clock_timestamp()) + (SELECT count(*) FROM dlock_waiter)"))
                    .as("nothing left").isEqualTo("0");
        }
    }

    @Test
    void aThreadBoundMultiLockIsReenteredAndUnlockedAsOnEveryStore() throws Exception {
        try (LockClient client = client(); LockClient rival = client()) {
            DistributedLock multi = client.getMultiLock("tb-x", "tb-y");
            multi.lock();
            assertThat(multi.isHeldByCurrentThread()).isTrue();
            assertThat(client.getLock("tb-x").isHeldByCurrentThread()).isTrue();
            multi.lock();  // a re-entry: every name again
            assertThat(multi.getHoldCount()).isEqualTo(2);
            assertThat(rival.getMultiLock("tb-y").tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
            multi.unlock();
            multi.unlock();
            assertThat(multi.getHoldCount()).isZero();
            assertThat(rival.getMultiLock("tb-y", "tb-x").tryLock(5, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(sql("SELECT count(*) FROM dlock_hold WHERE lease_end > clock_timestamp()")).as("the rival's holds went with its client").isEqualTo("0");
    }
}
