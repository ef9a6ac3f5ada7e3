package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockClient;
import dev.dlock.LockInfo;
import dev.dlock.RedisStore;
import dev.dlock.cli.common.ExitCodes;
import dev.dlock.testing.RedisServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code dlock exec} against a real redis-server, each dlock a real process. */
class ExecTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    /** Writes start and end times (ns) next to $0 and holds until a ".go" file appears there. */
    private static final String HOLD_UNTIL_GO = "date +%s%N > \"$0.start\"; "
            + "while [ ! -e \"$0.go\" ]; do sleep 0.05; done; date +%s%N > \"$0.end\"";

    /** Marks $0.started, then records a SIGTERM in $0.term and exits 42. */
    private static final String TRAP_TERM = "trap 'echo TERM > \"$0.term\"; exit 42' TERM; touch \"$0.started\"; "
            + "while true; do sleep 0.05; done";

    /** Records which of SIGINT (exit 43) or SIGTERM (exit 42) reached it in $0.signal. */
    private static final String TRAP_INT_AND_TERM = "trap 'echo INT > \"$0.signal\"; exit 43' INT; "
            + "trap 'echo TERM > \"$0.signal\"; exit 42' TERM; touch \"$0.started\"; "
            + "while true; do sleep 0.05; done";

    private static LockClient inspector;

    @TempDir
    Path dir;

    private final List<Cli.Running> running = new ArrayList<>();

    @BeforeAll
    static void connect() {
        inspector = LockClient.create(RedisStore.standalone(redis.server().uri()));
    }

    @AfterAll
    static void disconnect() {
        inspector.close();
    }

    @AfterEach
    void killLeftovers() {
        running.forEach(Cli.Running::close);
    }

    @Test
    void twoExecsOnOneNameRunOneAfterTheOtherAndAThirdWithWaitZeroGivesUp() throws IOException {
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        Cli.Running first = start("exec", "--wait", "60s", "report", "--", "sh", "-c", HOLD_UNTIL_GO, a.toString());
        Cli.Running second = start("exec", "--wait", "60s", "report", "--", "sh", "-c", HOLD_UNTIL_GO, b.toString());

        await().atMost(Cli.BOUND).until(() -> exists(a, ".start") || exists(b, ".start"));
        Path holder = exists(a, ".start") ? a : b;
        Path other = holder == a ? b : a;

        Cli.Result third = Cli.run("--redis", redis.server().uri(), "exec", "--wait", "0", "report", "--", "true");
        assertThat(third.exitCode()).as(third.toString()).isEqualTo(ExitCodes.NOT_ACQUIRED);
        assertThat(third.stderrLines()).as(third.toString()).hasSize(1);
        assertThat(third.stderr()).contains("lock 'report' not acquired within 0 ms", "held by dlock-exec:sh");
        assertThat(exists(other, ".start")).as("the second ran while the first held the lock").isFalse();

        Files.createFile(Path.of(holder + ".go"));
        await().atMost(Cli.BOUND).until(() -> exists(other, ".start"));
        Files.createFile(Path.of(other + ".go"));

        assertThat(first.await(Cli.BOUND).exitCode()).isZero();
        assertThat(second.await(Cli.BOUND).exitCode()).isZero();
        assertThat(time(holder, ".end")).as("the first ended before the second started")
                .isLessThanOrEqualTo(time(other, ".start"));
        assertThat(time(holder, ".start")).isLessThan(time(holder, ".end"));
        assertThat(time(other, ".start")).isLessThan(time(other, ".end"));
    }

    @Test
    void commandSeesLockNameAndFencingTokenAndItsExitCodeIsPassedOn() {
        Cli.Result result = Cli.run("--redis", redis.server().uri(), "exec", "job-7", "--",
                "sh", "-c", "echo \"$DLOCK_NAME $DLOCK_FENCING_TOKEN\"; exit 7");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(7);
        assertThat(result.stdout()).matches("job-7 [1-9][0-9]*\\R");
        assertThat(result.stderr()).isEmpty();
        assertThat(redis.server().keys("*{*")).as("the lock is released").isEmpty();
    }

    @Test
    void forcedReleaseSendsTheCommandSigtermAndExitsWithLockLost() {
        Path child = dir.resolve("child");
        Cli.Running exec = start("exec", "--lease", "2s", "batch", "--", "sh", "-c", TRAP_TERM, child.toString());
        await().atMost(Cli.BOUND).until(() -> exists(child, ".started"));

        Cli.Result release = Cli.run("--redis", redis.server().uri(), "release", "--force", "batch");
        assertThat(release.exitCode()).as(release.toString()).isZero();
        assertThat(release.stdout()).contains("released lock 'batch' (held by dlock-exec:sh on ");

        Cli.Result result = exec.await(Cli.BOUND);
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.LOCK_LOST);
        assertThat(exists(child, ".term")).as("the command got SIGTERM").isTrue();
        assertThat(result.stderr()).contains("lock 'batch' was lost", "sending SIGTERM to 'sh'")
                .doesNotContain("did not stop");
    }

    @Test
    void forcedReleaseWhileSleepRunsStopsItLongBeforeItWouldEnd() {
        Cli.Running exec = start("exec", "--lease", "10s", "nap", "--", "sleep", "3600");
        await().atMost(Cli.BOUND).until(() -> locked("nap"));

        assertThat(Cli.run("--redis", redis.server().uri(), "release", "--force", "nap").exitCode()).isZero();

        Cli.Result result = exec.await(Cli.BOUND);
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.LOCK_LOST);
        assertThat(result.stderr()).contains("sending SIGTERM to 'sleep'").doesNotContain("did not stop");
    }

    @Test
    void commandThatIgnoresSigtermIsKilledAfterTheGrace() {
        Path child = dir.resolve("stubborn");
        String ignoreTerm = "trap '' TERM; touch \"$0.started\"; while true; do sleep 0.05; done";
        Cli.Running exec = start("exec", "--lease", "2s", "--grace", "500ms", "stubborn", "--",
                "sh", "-c", ignoreTerm, child.toString());
        await().atMost(Cli.BOUND).until(() -> exists(child, ".started"));

        assertThat(Cli.run("--redis", redis.server().uri(), "release", "--force", "stubborn").exitCode()).isZero();

        Cli.Result result = exec.await(Cli.BOUND);
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.LOCK_LOST);
        assertThat(result.stderr()).contains("did not stop within 500 ms: sent SIGKILL");
    }

    @Test
    void sigtermToDlockReachesTheCommandAndTheLockIsReleasedWhenItEnds() {
        Path child = dir.resolve("service");
        Cli.Running exec = start("exec", "service", "--", "sh", "-c", TRAP_TERM, child.toString());
        await().atMost(Cli.BOUND).until(() -> exists(child, ".started"));

        exec.process().destroy(); // SIGTERM to dlock only

        Cli.Result result = exec.await(Cli.BOUND);
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(42);
        assertThat(exists(child, ".term")).isTrue();
        assertThat(locked("service")).as("released once the command ended").isFalse();
    }

    /**
     * docs/cli.md: "The lease (--lease ...) is renewed every third of it while the command runs";
     * the issue: "The lock is held while the command runs, renewed all the while". With a 1 s lease,
     * the same hold (same fencing token, same dlock process) stays in Redis over several leases, its
     * lease never above 1 s and seen to go up again (renewals), and only ends when the command does.
     */
    @Test
    void shortLeaseIsRenewedForAsLongAsTheCommandRunsAndTheKeyIsGoneAfterIt() throws IOException {
        Duration lease = Duration.ofSeconds(1);
        Path child = dir.resolve("long");
        Cli.Running exec = start("exec", "--lease", "1s", "long-job", "--", "sh", "-c", HOLD_UNTIL_GO,
                child.toString());
        await().atMost(Cli.BOUND).until(() -> exists(child, ".start"));

        LockInfo acquired = inspector.getLock("long-job").info();
        assertThat(acquired.isLocked()).as("held while the command runs").isTrue();
        assertThat(acquired.holder().orElseThrow().pid()).isEqualTo(exec.process().pid());
        assertThat(acquired.remainingLease()).isPositive().isLessThanOrEqualTo(lease);
        String key = acquired.key();

        // watch the hold until more than three leases have passed and several renewals were seen;
        // a hold that ran out, or was taken again, stops the watch at once
        long watchStart = System.nanoTime();
        AtomicReference<String> broken = new AtomicReference<>();
        AtomicInteger renewals = new AtomicInteger();
        AtomicReference<Duration> lastLease = new AtomicReference<>(acquired.remainingLease());
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
            LockInfo now = inspector.getLock("long-job").info();
            if (!now.isLocked() || now.fencingToken() != acquired.fencingToken()
                    || now.holder().orElseThrow().pid() != exec.process().pid()
                    || now.remainingLease().compareTo(lease) > 0) {
                broken.set(now + " after " + Duration.ofNanos(System.nanoTime() - watchStart) + ", first seen "
                        + acquired + "\n" + exec.stderr());
                return true;
            }
            if (now.remainingLease().compareTo(lastLease.getAndSet(now.remainingLease())) > 0) {
                renewals.incrementAndGet();
            }
            return renewals.get() >= 3 && System.nanoTime() - watchStart > lease.multipliedBy(3).toNanos();
        });
        assertThat(broken.get()).as("the hold ran out or changed while the command ran").isNull();
        assertThat(exec.process().isAlive()).isTrue();

        Cli.Result other = Cli.run("--redis", redis.server().uri(), "exec", "--wait", "0", "long-job", "--", "true");
        assertThat(other.exitCode()).as("still held after three leases: " + other).isEqualTo(ExitCodes.NOT_ACQUIRED);

        Files.createFile(Path.of(child + ".go"));
        Cli.Result result = exec.await(Cli.BOUND);
        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.stderr()).isEmpty();
        assertThat(redis.server().command("EXISTS", key)).as("key " + key + " after the command ended")
                .isEqualTo(0L);
        assertThat(redis.server().keys("*{*")).isEmpty();
    }

    @Test
    void sigintToDlockReachesTheCommandAsSigintAndTheLockIsReleasedWhenItEnds() {
        Path child = dir.resolve("interactive");
        Cli.Running exec = Cli.start(Cli.withDefaultSignals(), List.of(), Map.of(), "--redis", redis.server().uri(),
                "exec", "interactive", "--", "sh", "-c", TRAP_INT_AND_TERM, child.toString());
        running.add(exec);
        await().atMost(Cli.BOUND).until(() -> exists(child, ".started"));
        assertThat(locked("interactive")).isTrue();

        Cli.signal(exec.process(), "INT"); // to dlock only, as kill -INT would (not at a terminal)

        Cli.Result result = exec.await(Cli.BOUND);
        assertThat(result.exitCode()).as("the command's own code: " + result).isEqualTo(43);
        assertThat(read(child, ".signal")).as("the signal the command got").isEqualTo("INT");
        assertThat(locked("interactive")).as("released once the command ended").isFalse();
        assertThat(redis.server().keys("*{*")).isEmpty();
    }

    @Test
    void missingProgramExits127AndLeavesTheLockFree() {
        Cli.Result result = Cli.run("--redis", redis.server().uri(), "exec", "ghost", "--", "no-such-program-dlock");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(result.stderr()).contains("cannot run 'no-such-program-dlock'");
        assertThat(locked("ghost")).isFalse();
    }

    /** As the shell and timeout(1): 126 for what is there but cannot be run, a directory included; 127 for nothing there. */
    @Test
    void aDirectoryOrAFileThatIsNotExecutableExits126AndLeavesTheLockFree() throws IOException {
        Path plain = Files.writeString(dir.resolve("not-executable.sh"), "#!/bin/sh\ntrue\n");
        for (List<String> cannotRun : List.of(List.of(dir.toString(), "Is a directory"),
                List.of(plain.toString(), "Permission denied"))) {
            Cli.Result result = Cli.run("--redis", redis.server().uri(), "exec", "ghost", "--", cannotRun.get(0));

            assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.CANNOT_RUN);
            assertThat(result.stderr()).contains("cannot run '" + cannotRun.get(0) + "': " + cannotRun.get(1));
        }
        Cli.Result missing = Cli.run("--redis", redis.server().uri(), "exec", "ghost", "--", dir.resolve("nothing").toString());
        assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(locked("ghost")).isFalse();
    }

    private Cli.Running start(String... args) {
        List<String> all = new ArrayList<>(List.of("--redis", redis.server().uri()));
        all.addAll(List.of(args));
        Cli.Running process = Cli.start(all.toArray(String[]::new));
        running.add(process);
        return process;
    }


    private static String read(Path base, String suffix) {
        try {
            return Files.readString(Path.of(base + suffix)).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean locked(String name) {
        return inspector.getLock(name).isLocked();
    }

    private static boolean exists(Path base, String suffix) {
        return Files.exists(Path.of(base + suffix));
    }

    private static long time(Path base, String suffix) throws IOException {
        return Long.parseLong(Files.readString(Path.of(base + suffix)).strip());
    }
}
