package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.cli.common.ExitCodes;
import dev.dlock.testing.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What no retry mends is bad input, reported at once with exit 2, not waited out for the whole
 * {@code --wait} as an outage (69): wrong credentials, a user without the permission, a database
 * the server does not have, a lock name no lock may have (checked before connecting).
 */
class ExecRefusalsTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    @Test
    void refusalsAreBadInputAtOnceAndOutagesAreNot() {
        String host = "127.0.0.1:" + redis.server().port();
        // a user that may connect and nothing else: no script runs for it
        redis.server().command("ACL", "SETUSER", "scriptless", "on", ">pw", "~*", "+@connection");
        List<Cli.Running> runs = new ArrayList<>();
        List<List<String>> cases = List.of(
                List.of("redis://scriptless:wrong@" + host, "job", "WRONGPASS"),
                List.of("redis://" + host + "/99", "job", "redis://" + host + "/99: ERR DB index is out of range"),
                List.of("redis://scriptless:pw@" + host, "job", "NOPERM"),
                // nothing listens on port 1: an unchecked name would be waited on for the whole --wait
                List.of("redis://127.0.0.1:1", " ", "bad lock name: lock name must not be blank"));
        for (List<String> refusal : cases) {
            runs.add(Cli.start("--redis", refusal.get(0), "exec", "--wait", "1m", refusal.get(1), "--", "true"));
        }
        for (int i = 0; i < cases.size(); i++) {
            // well within the wait: a refusal is not retried
            Cli.Result result = runs.get(i).await(Duration.ofSeconds(45));
            assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.USAGE);
            assertThat(result.stderr()).as(result.toString()).startsWith("dlock: ").contains(cases.get(i).get(2))
                    .doesNotContain("unreachable");
        }
    }
}
