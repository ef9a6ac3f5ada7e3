package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockClient;
import dev.dlock.RedisStore;
import dev.dlock.cli.common.ExitCodes;
import dev.dlock.testing.RedisServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dlock exec --permits N}, {@code --shared} and {@code --exclusive}, each dlock a real
 * process. Every run's command appends "start RUN" and "end RUN" to one log (short appends to a
 * file opened with O_APPEND do not interleave), written while the run holds its permit or lock, so
 * the log's order shows which runs overlapped.
 */
class ExecKindsTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    /**
     * $0 the log, $1 the run's name, $2 how many starts to wait for in the log (at most 20 s) before
     * ending: a run that waits for others to start is inside at the same time as they are, if it
     * may be.
     */
    private static final String RECORD = "echo \"start $1\" >> \"$0\"; i=0; "
            + "while [ \"$(grep -c '^start' \"$0\")\" -lt \"$2\" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; "
            + "sleep 0.3; echo \"end $1\" >> \"$0\"";

    /** As {@link #RECORD}, but ends only once the file $0.go exists. */
    private static final String RECORD_UNTIL_GO = "echo \"start $1\" >> \"$0\"; "
            + "while [ ! -e \"$0.go\" ]; do sleep 0.05; done; echo \"end $1\" >> \"$0\"";

    @TempDir
    Path dir;

    private final List<Cli.Running> running = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        running.forEach(Cli.Running::close);
    }

    @Test
    void sixRunsWithTwoPermitsOverlapTwoAtATimeAndNeverMore() {
        Path log = dir.resolve("permits.log");
        for (int i = 0; i < 6; i++) {
            start("exec", "--permits", "2", "encoder", "--", "sh", "-c", RECORD, log.toString(), "run-" + i, "2");
        }
        awaitAll(0);
        List<String> events = lines(log);
        assertThat(events).hasSize(12);
        assertThat(mostInsideAtOnce(events)).isEqualTo(2);
    }

    @Test
    void sharedRunsOverlapAndAnExclusiveRunOverlapsNothing() {
        Path log = dir.resolve("shared.log");
        // three shared runs: each waits until all three have started, which only sharing allows
        for (int i = 0; i < 3; i++) {
            start("exec", "--shared", "catalog", "--", "sh", "-c", RECORD, log.toString(), "reader-" + i, "3");
        }
        awaitAll(0);
        assertThat(mostInsideAtOnce(lines(log))).isEqualTo(3);

        Path mixed = dir.resolve("mixed.log");
        for (int i = 0; i < 2; i++) {
            start("exec", "--shared", "catalog", "--", "sh", "-c", RECORD_UNTIL_GO, mixed.toString(), "reader-" + i);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> lines(mixed).size() == 2);
        start("exec", "--exclusive", "catalog", "--", "sh", "-c", RECORD, mixed.toString(), "writer", "0");
        // the writer waits for the readers in progress (no "start writer" yet), then goes alone
        try (LockClient inspector = LockClient.create(RedisStore.standalone(redis.server().uri()))) {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> inspector.getReadWriteLock("catalog").writeLock().info().waitingClients() == 1);
        }
        assertThat(lines(mixed)).as("nobody ended, so the writer cannot have started").hasSize(2);
        touch(mixed.resolveSibling("mixed.log.go"));
        awaitAll(0);
        List<String> events = lines(mixed);
        assertThat(events).hasSize(6);
        int writerStart = events.indexOf("start writer");
        assertThat(events.indexOf("end writer")).as(events.toString()).isEqualTo(writerStart + 1);
        assertThat(events.subList(0, writerStart)).as(events.toString()).contains("end reader-0", "end reader-1");
    }

    @Test
    void aRunWithAnotherPermitCountThanTheHoldersIsRefused() {
        Path log = dir.resolve("count.log");
        start("exec", "--permits", "2", "pool", "--", "sh", "-c", RECORD_UNTIL_GO, log.toString(), "holder");
        await().atMost(Duration.ofSeconds(60)).until(() -> lines(log).size() == 1);
        Cli.Result other = Cli.run("--redis", redis.server().uri(), "exec", "--permits", "3", "--wait", "0", "pool", "--",
                "true");
        assertThat(other.exitCode()).as(other.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(other.stderr()).contains("--permits:", "held with 2 permits", "asked for it with 3");
        touch(dir.resolve("count.log.go"));
        awaitAll(0);
    }

    /**
     * Every ordered pair of the five kinds on one name: a run of the first kind holds the name, and
     * a run of the second kind with {@code --wait 0} is refused (exit 1), in both orders. One name
     * per held kind, all held at once, and the 20 refused runs started at once.
     */
    @Test
    void everyKindExcludesEveryOtherKindOfTheSameNameInBothOrders() {
        List<List<String>> kinds = List.of(List.of(), List.of("--fair"), List.of("--shared"), List.of("--exclusive"),
                List.of("--permits", "2"));
        Path log = dir.resolve("kinds.log");
        for (int held = 0; held < kinds.size(); held++) {
            List<String> args = new ArrayList<>(List.of("exec"));
            args.addAll(kinds.get(held));
            args.addAll(List.of("kinds-" + held, "--", "sh", "-c", RECORD_UNTIL_GO, log.toString(), "holder-" + held));
            start(args.toArray(String[]::new));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> lines(log).size() == kinds.size());
        List<Cli.Running> holders = List.copyOf(running);
        running.clear();
        List<String> pairs = new ArrayList<>();
        for (int held = 0; held < kinds.size(); held++) {
            for (int other = 0; other < kinds.size(); other++) {
                if (other != held) {
                    List<String> args = new ArrayList<>(List.of("exec", "--wait", "0"));
                    args.addAll(kinds.get(other));
                    args.addAll(List.of("kinds-" + held, "--", "sh", "-c", "echo ran >> \"$0\"", log.toString()));
                    start(args.toArray(String[]::new));
                    pairs.add(kinds.get(other) + " while " + kinds.get(held) + " is held");
                }
            }
        }
        for (int i = 0; i < pairs.size(); i++) {
            Cli.Result result = running.get(i).await(Duration.ofMinutes(2));
            assertThat(result.exitCode()).as(pairs.get(i) + ": " + result).isEqualTo(1);
            assertThat(result.stderr()).as(pairs.get(i)).contains("not acquired within").contains(": held by ");
        }
        running.clear();
        assertThat(lines(log)).doesNotContain("ran");
        touch(dir.resolve("kinds.log.go"));
        running.addAll(holders);
        awaitAll(0);
    }

    /** flock's short options, as flock reads them: -x, -s, -n, -w SECONDS (fractions), -E, -o; and --wait 1.5s. */
    @Test
    void flocksShortOptionsMeanWhatTheyMeanToFlock() {
        Path log = dir.resolve("flock.log");
        start("exec", "-x", "-o", "flock-like", "--", "sh", "-c", RECORD_UNTIL_GO, log.toString(), "holder");
        await().atMost(Duration.ofSeconds(60)).until(() -> lines(log).size() == 1);
        List<Cli.Running> holder = List.copyOf(running);
        running.clear();
        start("exec", "-n", "-E", "7", "-o", "flock-like", "--", "true");
        start("exec", "-s", "-w", "0.5", "flock-like", "--", "true");
        start("exec", "--wait", "1.5s", "flock-like", "--", "true");
        start("exec", "-n", "-w", "1", "flock-like", "--", "true");
        Path dashed = dir.resolve("dashed.log");
        start("exec", "--name", "-dashed", "--", "sh", "-c", "echo \"$DLOCK_NAME\" > \"$0\"", dashed.toString());
        List<Cli.Result> results = running.stream().map(run -> run.await(Duration.ofMinutes(2))).toList();
        running.clear();
        assertThat(results.get(0).exitCode()).as(results.get(0).toString()).isEqualTo(7);
        assertThat(results.get(0).stderr()).contains("lock 'flock-like' not acquired within 0 ms");
        assertThat(results.get(1).exitCode()).as(results.get(1).toString()).isEqualTo(1);
        assertThat(results.get(1).stderr()).contains("shared lock 'flock-like' not acquired within 500 ms");
        assertThat(results.get(2).exitCode()).as(results.get(2).toString()).isEqualTo(1);
        assertThat(results.get(2).stderr()).contains("lock 'flock-like' not acquired within 1.5 s");
        assertThat(results.get(3).exitCode()).as(results.get(3).toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(results.get(3).stderr()).contains("-w and -n exclude each other");
        assertThat(results.get(4).exitCode()).as(results.get(4).toString()).isZero();
        assertThat(lines(dashed)).containsExactly("-dashed");
        touch(dir.resolve("flock.log.go"));
        running.addAll(holder);
        awaitAll(0);
    }

    /** The most runs between their "start" and "end" at any point of the log. */
    private static int mostInsideAtOnce(List<String> events) {
        Set<String> inside = new HashSet<>();
        int most = 0;
        for (String event : events) {
            String run = event.substring(event.indexOf(' ') + 1);
            if (event.startsWith("start ")) {
                inside.add(run);
                most = Math.max(most, inside.size());
            } else {
                inside.remove(run);
            }
        }
        return most;
    }

    private void start(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--redis";
        all[1] = redis.server().uri();
        System.arraycopy(args, 0, all, 2, args.length);
        running.add(Cli.start(all));
    }

    private void awaitAll(int exitCode) {
        for (Cli.Running run : running) {
            Cli.Result result = run.await(Duration.ofMinutes(2));
            assertThat(result.exitCode()).as(result.toString()).isEqualTo(exitCode);
        }
        running.clear();
    }

    private static List<String> lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void touch(Path file) {
        try {
            Files.writeString(file, "go");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
