package dev.dlock.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.PostgresStore;
import dev.dlock.processes.PostgresWorker;
import dev.dlock.testing.JavaProcess;
import dev.dlock.testing.JavaProcesses;
import dev.dlock.testing.PostgresServer;
import dev.dlock.testing.PostgresServers;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/** Locks on PostgreSQL between real JVMs: exclusion, a crashed holder, a paused holder's stale token, NOTIFY. */
class PostgresProcessesTest {

    private static final Pattern DONE = Pattern.compile("DONE increments=(\\d+) refused=(\\d+) contended=(\\d+)");
    private static final Pattern HELD = Pattern.compile("HELD (\\d+)");

    @RegisterExtension
    static final PostgresServers postgres = PostgresServers.create();

    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void freshResource() {
        PostgresServer server = postgres.server();
        server.sql("DROP TABLE IF EXISTS fenced, go; CREATE TABLE fenced (id int PRIMARY KEY, value bigint, token bigint);"
                + " INSERT INTO fenced VALUES (1, 0, 0); CREATE TABLE go (x int)");
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable closeable : open) {
            closeable.close();
        }
    }

    private <T extends AutoCloseable> T track(T closeable) {
        open.add(closeable);
        return closeable;
    }

    private JavaProcess worker(String... args) {
        List<String> all = new ArrayList<>(List.of(postgres.server().jdbcUrl()));
        all.addAll(List.of(args));
        return track(JavaProcesses.start(PostgresWorker.class, all));
    }

    @Test
    void threeJvmsOfEightThreadsLoseNoUpdateOfAFencedCounter() {
        int increments = 15;
        List<JavaProcess> workers = List.of(worker("count", "counter", "8", Integer.toString(increments)),
                worker("count", "counter", "8", Integer.toString(increments)),
                worker("count", "counter", "8", Integer.toString(increments)));
        await().atMost(Duration.ofSeconds(60)).until(() -> workers.stream().allMatch(w -> {
            assertThat(w.process().isAlive()).as(w.log()).isTrue();
            return w.log().contains("READY");
        }));
        postgres.server().sql("INSERT INTO go VALUES (1)");
        int contended = 0;
        for (JavaProcess worker : workers) {
            assertThat(worker.waitFor(Duration.ofMinutes(3))).as(worker.log()).isZero();
            Matcher done = DONE.matcher(worker.log());
            assertThat(done.find()).as(worker.log()).isTrue();
            assertThat(done.group(2)).as("writes refused by the fence: %s", worker.log()).isEqualTo("0");
            contended += Integer.parseInt(done.group(3));
        }
        assertThat(postgres.server().sql("SELECT value FROM fenced")).isEqualTo(Integer.toString(3 * 8 * increments));
        assertThat(contended).as("the lock was found held by others").isPositive();
        assertThat(postgres.server().sql("SELECT count(*) FROM dlock_hold WHERE lease_end > clock_timestamp()")).isEqualTo("0");
    }

    @Test
    void aKilledHoldersLockComesBackAtItsLeaseEnd() {
        JavaProcess holder = worker("hold", "crash", "1500");
        await().atMost(Duration.ofSeconds(60)).until(() -> HELD.matcher(holder.log()).find());
        long before = System.nanoTime();
        holder.kill();
        try (LockClient client = LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl())).build()) {
            DistributedLock lock = client.getLock("crash");
            assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);
            assertThat(waitedMs).as("not before the dead holder's lease ended").isGreaterThan(500);
            assertThat(lock.fencingToken()).isGreaterThan(heldToken(holder));
            lock.unlock();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aPausedHoldersStaleTokenIsRefusedByTheFencedResource() throws Exception {
        JavaProcess holder = worker("stale", "paused", "1000");
        await().atMost(Duration.ofSeconds(60)).until(() -> HELD.matcher(holder.log()).find());
        holder.pause();
        try (LockClient client = LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl())).build();
                Connection db = DriverManager.getConnection(postgres.server().jdbcUrl())) {
            DistributedLock lock = client.getLock("paused");
            assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
            assertThat(lock.fencingToken()).isGreaterThan(heldToken(holder));
            assertThat(PostgresWorker.writeFenced(db, lock.fencingToken(), false)).isTrue();
            postgres.server().sql("INSERT INTO go VALUES (1)");
            holder.resume();
            assertThat(holder.waitFor(Duration.ofSeconds(60))).as(holder.log()).isZero();
            assertThat(holder.log()).contains("WRITE refused");
            lock.unlock();
        }
    }

    @Test
    void aWaiterInAnotherJvmIsWokenByNotifyWithinMillisecondsOfTheRelease() {
        try (LockClient client = LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl())).build()) {
            DistributedLock lock = client.getLock("notify");
            lock.lock();
            JavaProcess waiter = worker("wait", "notify");
            await().atMost(Duration.ofSeconds(60)).until(() -> waiter.log().contains("WAITING")
                    && "1".equals(postgres.server().sql("SELECT count(*) FROM dlock_waiter WHERE name = 'dlock:{notify}'")));
            long releasedAt = System.currentTimeMillis();
            lock.unlock();
            assertThat(waiter.waitFor(Duration.ofSeconds(60))).as(waiter.log()).isZero();
            Matcher acquired = Pattern.compile("ACQUIRED (\\d+)").matcher(waiter.log());
            assertThat(acquired.find()).as(waiter.log()).isTrue();
            long latencyMs = Long.parseLong(acquired.group(1)) - releasedAt;
            LoggerFactory.getLogger(PostgresProcessesTest.class).info("release to acquire in another JVM: {} ms", latencyMs);
            // the lease (30 s) is the only other way it could have learnt of the release
            assertThat(latencyMs).isLessThan(2_000);
        }
    }

    private static long heldToken(JavaProcess holder) {
        Matcher held = HELD.matcher(holder.log());
        assertThat(held.find()).as(holder.log()).isTrue();
        return Long.parseLong(held.group(1));
    }
}
