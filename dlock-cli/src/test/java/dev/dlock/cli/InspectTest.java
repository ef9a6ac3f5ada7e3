package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dlock.LockClient;
import dev.dlock.LockHandle;
import dev.dlock.RedisStore;
import dev.dlock.cli.common.ExitCodes;
import dev.dlock.testing.RedisServers;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code status}, {@code list} and {@code release --force} on locks this test holds through the core API. */
class InspectTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration HOLDER_LEASE = LockClient.DEFAULT_LEASE;

    private LockClient holder;
    private LockClient waiter;

    @BeforeEach
    void connect() {
        // the default lease and command timeout: the holder hears of a forced release on its notice
        // channel, not at a renewal, and a loaded machine must not make it lose a hold by a timeout
        holder = LockClient.builder().store(RedisStore.standalone(redis.server().uri())).clientName("inspect-holder").build();
        waiter = LockClient.builder().store(RedisStore.standalone(redis.server().uri())).clientName("inspect-waiter").build();
    }

    @AfterEach
    void disconnect() {
        holder.close();
        waiter.close();
    }

    @Test
    void statusShowsHolderHoldCountLeaseTokenAndWaiters() throws Exception {
        long before = System.nanoTime();
        LockHandle held = holder.getLock("orders").acquireAsync().join();
        // a bound past the dlock runs below: each JVM took up to a minute to start at a load of 45
        CompletableFuture<Optional<LockHandle>> waiting = waiter.getLock("orders").tryAcquireAsync(Duration.ofMinutes(10));
        await().atMost(Duration.ofSeconds(10)).until(() -> holder.getLock("orders").info().waitingClients() == 1);

        Cli.Result text = dlock("status", "orders");
        assertThat(text.exitCode()).as(text.toString()).isZero();
        assertThat(text.stdout()).contains("lock 'orders': held",
                "inspect-holder on ", ", pid " + ProcessHandle.current().pid() + ", thread ",
                "hold count     1", "held for       ", "fencing token  " + held.fencingToken(), "waiting        1 client");

        Cli.Result json = dlock("status", "--json", "orders");
        assertThat(json.exitCode()).as(json.toString()).isZero();
        JsonNode status = JSON.readTree(json.stdout());
        assertThat(status.get("name").asText()).isEqualTo("orders");
        assertThat(status.get("locked").asBoolean()).isTrue();
        assertThat(status.get("holder").get("client").asText()).isEqualTo("inspect-holder");
        assertThat(status.get("holder").get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
        assertThat(status.get("holdCount").asInt()).isEqualTo(1);
        assertThat(status.get("remainingLeaseMs").asLong()).isBetween(1L, HOLDER_LEASE.toMillis());
        // the server runs on this machine: its clock and this one agree, up to the rounding to ms
        assertThat(status.get("heldForMs").asLong()).isBetween(0L, (System.nanoTime() - before) / 1_000_000 + 5);
        assertThat(status.get("fencingToken").asLong()).isEqualTo(held.fencingToken());
        assertThat(status.get("waitingClients").asLong()).isEqualTo(1);

        held.release();
        waiting.join().orElseThrow().release();
    }

    @Test
    void statusOfAFreeLockSaysFree() throws Exception {
        Cli.Result text = dlock("status", "idle");
        assertThat(text.exitCode()).as(text.toString()).isZero();
        assertThat(text.stdout()).startsWith("lock 'idle': free");

        JsonNode status = JSON.readTree(dlock("status", "idle", "--json").stdout());
        assertThat(status.get("locked").asBoolean()).isFalse();
        assertThat(status.get("holder").isNull()).isTrue();
        assertThat(status.get("fencingToken").isNull()).isTrue();
    }

    @Test
    void listShowsEveryHeldLockMatchingThePattern() throws Exception {
        LockHandle a = holder.getLock("orders-a").acquireAsync().join();
        LockHandle b = holder.getLock("orders-b").acquireAsync().join();
        LockHandle other = holder.getLock("nightly").acquireAsync().join();

        Cli.Result all = dlock("list");
        assertThat(all.exitCode()).as(all.toString()).isZero();
        assertThat(all.stdout().lines()).hasSize(4).first().asString().startsWith("NAME");
        assertThat(all.stdout()).contains("orders-a", "orders-b", "nightly", "inspect-holder on ");

        JsonNode matching = JSON.readTree(dlock("list", "orders-*", "--json").stdout());
        assertThat(matching.isArray()).isTrue();
        assertThat(matching).hasSize(2);
        assertThat(matching.get(0).get("name").asText()).isEqualTo("orders-a");
        assertThat(matching.get(1).get("name").asText()).isEqualTo("orders-b");
        assertThat(matching.get(0).get("holder").get("client").asText()).isEqualTo("inspect-holder");
        assertThat(matching.get(0).get("remainingLeaseMs").asLong()).isPositive();
        assertThat(matching.get(0).get("heldForMs").isIntegralNumber()).as(matching.toString()).isTrue();
        assertThat(all.stdout().lines().findFirst().orElseThrow()).contains("HOLDER", "HELD FOR", "LEASE LEFT");

        Cli.Result none = dlock("list", "nothing-*");
        assertThat(none.stdout()).isEqualTo("no held lock matches 'nothing-*'" + System.lineSeparator());
        assertThat(JSON.readTree(dlock("list", "nothing-*", "--json").stdout())).isEmpty();

        a.release();
        b.release();
        other.release();
    }

    @Test
    void statusAndListShowEveryPermitHolderAndEveryReader() throws Exception {
        LockHandle first = holder.getSemaphore("encoders", 3).acquire();
        LockHandle second = waiter.getSemaphore("encoders", 3).acquire();
        LockHandle reading = holder.getReadWriteLock("catalog").readLock().acquireAsync().join();
        LockHandle alsoReading = waiter.getReadWriteLock("catalog").readLock().acquireAsync().join();

        Cli.Result text = dlock("status", "encoders");
        assertThat(text.exitCode()).as(text.toString()).isZero();
        assertThat(text.stdout()).contains("lock 'encoders': held (semaphore: 2 of 3 permits held)",
                "permit         inspect-holder on ", "permit         inspect-waiter on ",
                "token " + first.fencingToken(), "token " + second.fencingToken());
        JsonNode status = JSON.readTree(dlock("status", "--json", "encoders").stdout());
        assertThat(status.get("permits").asInt()).isEqualTo(3);
        assertThat(status.get("holds")).hasSize(2);
        assertThat(status.get("holds").get(0).get("holder").get("client").asText()).isEqualTo("inspect-holder");
        assertThat(status.get("holds").get(0).get("shared").asBoolean()).isTrue();
        assertThat(status.get("holds").get(1).get("fencingToken").asLong()).isEqualTo(second.fencingToken());
        // the summary's holder and token are one holder's: the newest permit's
        assertThat(status.get("kind").asText()).isEqualTo("semaphore");
        assertThat(status.get("fencingToken").asLong()).isEqualTo(second.fencingToken());
        assertThat(status.get("holder").get("client").asText()).isEqualTo("inspect-waiter");
        assertThat(JSON.readTree(dlock("status", "--json", "catalog").stdout()).get("kind").asText()).isEqualTo("shared");

        assertThat(dlock("status", "catalog").stdout()).contains("lock 'catalog': held (2 readers)",
                "reader         inspect-holder on ", "reader         inspect-waiter on ");

        Cli.Result list = dlock("list");
        assertThat(list.stdout().lines()).as(list.stdout()).hasSize(5);
        assertThat(list.stdout()).contains("permit of 3: inspect-holder on ", "permit of 3: inspect-waiter on ",
                "reader: inspect-holder on ", "reader: inspect-waiter on ");
        JsonNode listed = JSON.readTree(dlock("list", "--json").stdout());
        assertThat(listed).hasSize(2);
        assertThat(listed.get(0).get("name").asText()).isEqualTo("catalog");
        assertThat(listed.get(0).get("holds")).hasSize(2);
        assertThat(listed.get(0).get("permits").isNull()).isTrue();
        assertThat(listed.get(1).get("permits").asInt()).isEqualTo(3);

        first.release();
        second.release();
        reading.release();
        alsoReading.release();
    }

    @Test
    void forcedReleaseFreesTheLockAndItsHolderLearnsItLostIt() {
        LockHandle held = holder.getLock("stuck").acquireAsync().join();

        Cli.Result release = dlock("release", "--force", "stuck");
        assertThat(release.exitCode()).as(release.toString()).isZero();
        assertThat(release.stdout()).contains("released lock 'stuck' (held by inspect-holder on ",
                "fencing token " + held.fencingToken());

        await().atMost(Duration.ofSeconds(10)).until(() -> held.whenLost().isDone());
        assertThat(holder.getLock("stuck").isLocked()).isFalse();

        Cli.Result again = dlock("release", "--force", "stuck");
        assertThat(again.exitCode()).as(again.toString()).isEqualTo(ExitCodes.FAILED);
        assertThat(again.stdout()).contains("lock 'stuck' was not held");
    }

    @Test
    void releaseWithoutForceIsRefused() {
        LockHandle held = holder.getLock("kept").acquireAsync().join();

        Cli.Result refused = dlock("release", "kept");
        assertThat(refused.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(refused.stderr()).contains("Missing required option: '--force'");
        assertThat(held.isValid()).isTrue();
        held.release();
    }

    private static Cli.Result dlock(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--redis";
        all[1] = redis.server().uri();
        System.arraycopy(args, 0, all, 2, args.length);
        return Cli.run(all);
    }
}
