package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dlock.cli.common.ExitCodes;
import dev.dlock.testing.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code exec}, {@code status}, {@code list}, {@code top} and {@code release --force} as real processes on one
 * topology (Sentinel, Redlock, Cluster), checked against the keys on the servers themselves.
 */
abstract class TopologyCliContract {

    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * Short, so that an exec holder whose notice channel is in another slot (a Cluster) hears a forced
     * release at its next renewal, within about 3 s; not shorter, as exec's command timeout is a
     * quarter of it (2.5 s; with 3 s it was 750 ms, short for a loaded machine).
     */
    private static final String LEASE = "10s";
    private static final Duration BOUND = Cli.BOUND;

    @TempDir
    Path dir;

    /** The global options that name the topology, e.g. {@code --redis redis-sentinel://...}. */
    abstract List<String> topology();

    /** Names of locks to hold at once; on a Cluster, names whose keys sit on different masters. */
    abstract List<String> names();

    /** The servers that hold a copy of the lock's key while it is held (Redlock: every node). */
    abstract List<RedisServer> serversOf(String name);

    /**
     * Checks the token {@code status} and {@code release} report against the holder's own. One
     * Redis has one copy with one token, so they are equal; a Redlock overrides this.
     */
    void assertReportedToken(long reported, long holders) {
        assertThat(reported).as("token reported for the holder's").isEqualTo(holders);
    }

    @Test
    void execRunsTheCommandUnderTheLockAndReleasesItAfterwards() {
        String name = names().get(0);
        Cli.Result result = dlock("exec", "--wait", "10s", name, "--", "sh", "-c",
                "test -n \"$DLOCK_FENCING_TOKEN\" && test \"$DLOCK_NAME\" = " + name + " && exit 7");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(7);
        assertThat(result.stderr()).as(result.toString()).isEmpty();
        assertStored(name, false, "after exec");
    }

    @Test
    void statusListAndForcedReleaseOfExecHolders() throws Exception {
        List<String> names = names();
        List<Cli.Running> holders = new ArrayList<>();
        try {
            for (String name : names) {
                holders.add(Cli.start(Map.of(), args("exec", "--lease", LEASE, name, "--", "sh", "-c",
                        "echo \"$DLOCK_FENCING_TOKEN\" > " + tokenFile(name) + "; exec sleep 3600")));
            }
            for (String name : names) {
                await().atMost(BOUND).until(() -> Files.exists(tokenFile(name)) && Files.size(tokenFile(name)) > 1);
                assertStored(name, true, "while held");
            }

            for (String name : names) {
                Cli.Result status = dlock("status", "--json", name);
                assertThat(status.exitCode()).as(status.toString()).isZero();
                JsonNode info = JSON.readTree(status.stdout());
                assertThat(info.get("locked").asBoolean()).as(status.toString()).isTrue();
                assertThat(info.get("holder").get("client").asText()).isEqualTo("dlock-exec:sh");
                assertReportedToken(info.get("fencingToken").asLong(), token(name));
            }

            Cli.Result list = dlock("list", "--json");
            assertThat(list.exitCode()).as(list.toString()).isZero();
            List<String> listed = StreamSupport.stream(JSON.readTree(list.stdout()).spliterator(), false)
                    .map(info -> info.get("name").asText()).toList();
            assertThat(listed).as(list.toString()).containsExactlyElementsOf(names.stream().sorted().toList());

            Cli.Result top = dlock("top", "--once");
            assertThat(top.exitCode()).as(top.toString()).isZero();
            assertThat(top.stdout().lines().toList()).as(top.toString()).hasSize(names.size() + 2)
                    .first().asString().contains(names.size() + (names.size() == 1 ? " held lock" : " held locks")
                            + " matching '*'");
            for (String name : names) {
                assertThat(top.stdout()).as(top.toString())
                        .containsPattern("(?m)^" + Pattern.quote(name) + " +dlock-exec:sh on ");
            }

            for (int i = 0; i < names.size(); i++) {
                String name = names.get(i);
                Cli.Result release = dlock("release", "--force", name);
                assertThat(release.exitCode()).as(release.toString()).isZero();
                assertThat(release.stdout()).contains("released lock '" + name + "' (held by dlock-exec:sh on ");
                assertReportedToken(reportedToken(release), token(name));
                // the release has answered: every node's copy is gone now, not at the next expiry
                assertStored(name, false, "after release --force");
                Cli.Result stopped = holders.get(i).await(BOUND);
                assertThat(stopped.exitCode()).as(stopped.toString()).isEqualTo(ExitCodes.LOCK_LOST);
                for (String other : names.subList(i + 1, names.size())) {
                    assertThat(JSON.readTree(dlock("status", "--json", other).stdout()).get("locked").asBoolean())
                            .as("'%s' still held after '%s' was released", other, name).isTrue();
                }
            }

            Cli.Result free = dlock("status", names.get(0));
            assertThat(free.stdout()).as(free.toString()).startsWith("lock '" + names.get(0) + "': free");
            Cli.Result again = dlock("release", "--force", names.get(0));
            assertThat(again.exitCode()).as(again.toString()).isEqualTo(ExitCodes.FAILED);
            Cli.Result none = dlock("list");
            assertThat(none.stdout()).as(none.toString()).startsWith("no held lock matches '*'");
        } finally {
            holders.forEach(Cli.Running::close);
        }
    }

    Cli.Result dlock(String... args) {
        return Cli.run(BOUND, args(args));
    }

    private String[] args(String... args) {
        List<String> all = new ArrayList<>(topology());
        all.addAll(List.of(args));
        return all.toArray(String[]::new);
    }

    /** The token in {@code released lock 'x' (held by ..., fencing token N)}. */
    static long reportedToken(Cli.Result release) {
        Matcher token = Pattern.compile("fencing token (\\d+)\\)").matcher(release.stdout());
        assertThat(token.find()).as(release.toString()).isTrue();
        return Long.parseLong(token.group(1));
    }

    /** Checks that the lock is (or is not) where the topology keeps it: by default its key on {@link #serversOf}. */
    void assertStored(String name, boolean held, String when) {
        for (RedisServer server : serversOf(name)) {
            assertThat(exists(server, name)).as("key of '%s' on %s %s", name, server, when).isEqualTo(held);
        }
    }

    static boolean exists(RedisServer server, String name) {
        return Long.valueOf(1).equals(server.command("EXISTS", "dlock:{" + name + "}"));
    }

    private Path tokenFile(String name) {
        return dir.resolve(name + ".token");
    }

    private long token(String name) {
        try {
            return Long.parseLong(Files.readString(tokenFile(name)).strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
