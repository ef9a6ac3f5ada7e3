package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockServers.Topology;
import dev.dlock.processes.PermitHolderWorker;
import dev.dlock.processes.SemaphoreWorker;
import dev.dlock.testing.JavaProcess;
import dev.dlock.testing.JavaProcesses;
import dev.dlock.testing.RedisServer;
import dev.dlock.testing.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A semaphore across real JVMs, counted by a witness on a Redis of its own: never more holders
 * than permits, every thread gets in, a killed holder's permit comes back at its lease's end, and
 * a paused holder's stale token is refused by a fenced resource.
 */
class SemaphoreProcessesTest {

    private static final Logger LOG = LoggerFactory.getLogger(SemaphoreProcessesTest.class);

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedisAndRedlock(5).withRedlockNodeTimeout(Duration.ofMillis(250));

    /** Counts holders from outside: not the Redis the semaphore lives on. */
    @RegisterExtension
    static final RedisServers witness = RedisServers.standalone();

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK"})
    void neverMoreThanThreeInsideAcrossThreeJvmsAndEveryThreadGetsIn(Topology topology) {
        int permits = 3;
        int jvms = 3;
        int threads = 8;
        int iterations = topology == Topology.ONE_REDIS ? 10 : 5;
        RedisServer counters = witness.server();
        List<JavaProcess> workers = new ArrayList<>();
        for (int i = 0; i < jvms; i++) {
            workers.add(servers.track(JavaProcesses.start(SemaphoreWorker.class, List.of(
                    String.join(",", servers.uris(topology)), "pool", Integer.toString(permits),
                    Integer.toString(threads), Integer.toString(iterations), "5", counters.uri()))));
        }
        // all connected before any starts, so that their runs overlap on a loaded machine
        await().atMost(Duration.ofMinutes(1)).until(() -> Long.valueOf(jvms).equals(counters.command("LLEN", "sem:ready")));
        counters.command("RPUSH", "sem:go", "go", "go", "go");
        for (JavaProcess worker : workers) {
            assertThat(worker.waitFor(Duration.ofMinutes(3))).as(worker.log()).isZero();
            assertThat(worker.log()).contains("DONE");
        }
        @SuppressWarnings("unchecked")
        List<String> entries = (List<String>) counters.command("HGETALL", "sem:entries");
        LOG.info("{}: most inside at once {}, threads {}", topology, counters.command("GET", "sem:most"), entries.size() / 2);
        assertThat(counters.command("GET", "sem:violations")).as("entries with more than 3 inside").isNull();
        assertThat(Long.parseLong((String) counters.command("GET", "sem:most"))).isBetween(2L, (long) permits);
        // every thread of every JVM got in every time
        assertThat(entries).hasSize(2 * jvms * threads);
        for (int i = 1; i < entries.size(); i += 2) {
            assertThat(entries.get(i)).as(entries.get(i - 1)).isEqualTo(Integer.toString(iterations));
        }
        // Over Redlock a release returns once a quorum released; a node whose release timed out on a
        // loaded machine keeps its copy of the permit until the permit's lease (30 s) ends
        Duration leftovers = topology == Topology.REDLOCK ? LockClient.DEFAULT_LEASE.plusSeconds(5) : Duration.ofSeconds(5);
        await().atMost(leftovers).untilAsserted(() -> {
            for (RedisServer server : servers.servers(topology)) {
                assertThat(server.keys("dlock:{*")).as(() -> server.uri() + " " + describeKeys(server)).isEmpty();
            }
        });
    }

    private static String describeKeys(RedisServer server) {
        StringBuilder description = new StringBuilder();
        for (String key : server.keys("dlock:{*")) {
            description.append(key).append(" pttl ").append(server.command("PTTL", key))
                    .append(' ').append(server.command("HGETALL", key)).append("; ");
        }
        return description.toString();
    }

    @Test
    void killedHoldersPermitComesBackWhenItsLeaseEndsAndNotBefore() throws Exception {
        long leaseMs = 2000;
        DistributedSemaphore semaphore = servers.newClient(Topology.ONE_REDIS).getSemaphore("crash", 2);
        LockHandle mine = semaphore.acquire();
        JavaProcess holder = startHolder("crash", 2, leaseMs);
        assertThat(semaphore.tryAcquire()).as("both permits held").isEmpty();

        holder.kill();
        long killedAt = System.nanoTime();
        long leaseLeftMs = holdOf(semaphore, "permit-holder").remainingLease().toMillis();
        assertThat(leaseLeftMs).isPositive().isLessThanOrEqualTo(leaseMs);
        assertThat(semaphore.tryAcquire()).as("the dead holder's permit, before its lease ended").isEmpty();

        Optional<LockHandle> returned = semaphore.tryAcquire(Duration.ofSeconds(10));
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        assertThat(returned).isPresent();
        // Redis gave the permit back when its lease ran out; the waiter got it then, not before
        assertThat(waitedMs).isGreaterThanOrEqualTo(leaseLeftMs - 5).isLessThan(leaseMs + 1500);
        returned.get().release();
        mine.release();
        assertThat(servers.server().keys("dlock:{*")).isEmpty();
    }

    @Test
    void pausedHoldersStaleTokenIsRefusedByTheFencedResource() throws Exception {
        long leaseMs = 1000;
        RedisServer resource = witness.server();
        DistributedSemaphore semaphore = servers.newClient(Topology.ONE_REDIS).getSemaphore("fenced", 2);
        JavaProcess holder = startHolder("fenced", 2, leaseMs);
        long staleToken = Long.parseLong(holder.log().lines().filter(line -> line.startsWith("HOLDING "))
                .findFirst().orElseThrow().substring("HOLDING ".length()).strip());
        LockHandle other = semaphore.acquire();

        holder.pause();
        try {
            // the paused holder's watchdog cannot renew: its permit comes back at its lease's end
            LockHandle next = semaphore.tryAcquire(Duration.ofSeconds(15)).orElseThrow();
            assertThat(next.fencingToken()).isGreaterThan(staleToken).isGreaterThan(other.fencingToken());
            assertThat(fencedWrite(resource, next.fencingToken())).as("the new holder writes").isEqualTo(1L);
            resource.command("RPUSH", "permit:write", "now");
            holder.resume();
            await().atMost(Duration.ofSeconds(30)).until(() -> holder.log().contains("WRITE "));
            assertThat(holder.log()).contains("WRITE " + staleToken + " rejected");
            assertThat(resource.command("GET", "resource:highest-token")).isEqualTo(Long.toString(next.fencingToken()));
            next.release();
        } finally {
            holder.resume();
        }
        other.release();
    }

    private static JavaProcess startHolder(String name, int permits, long leaseMs) {
        JavaProcess holder = servers.track(JavaProcesses.start(PermitHolderWorker.class, List.of(servers.server().uri(),
                name, Integer.toString(permits), Long.toString(leaseMs), witness.server().uri())));
        await().atMost(Duration.ofSeconds(60)).until(() -> holder.log().contains("HOLDING") || !holder.process().isAlive());
        assertThat(holder.log()).as("holder process log").contains("HOLDING");
        return holder;
    }

    private static HoldInfo holdOf(DistributedSemaphore semaphore, String clientName) {
        return semaphore.info().holds().stream().filter(hold -> hold.holder().clientName().equals(clientName))
                .findFirst().orElseThrow(() -> new AssertionError("no permit of " + clientName + " in " + semaphore.info()));
    }

    private static Object fencedWrite(RedisServer resource, long token) {
        return resource.command("EVAL", PermitHolderWorker.FENCED_WRITE, "1", "resource:highest-token",
                Long.toString(token));
    }
}
