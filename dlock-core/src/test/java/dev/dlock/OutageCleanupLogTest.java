package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * During an outage every acquire whose outcome is unknown leaves a best-effort cleanup behind that
 * fails too: the log tells it once when the first fails and once, with the count, when Redis
 * answers again, instead of a WARN each; and it never says "release" of a lock that may never have
 * been held. The test's SLF4J binding is slf4j-simple, which writes to the current System.err.
 */
class OutageCleanupLogTest {
    private static final Pattern COUNT = Pattern.compile("answers again; (\\d+) best-effort cleanup");

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    @RegisterExtension
    final CapturedStderr stderr = new CapturedStderr();

    private List<String> warnings(String text) {
        return stderr.text().lines().filter(line -> line.contains(" WARN ") && line.contains(text)).toList();
    }

    @Test
    void failedCleanupsOfAnOutageAreOneWarningAndACount() {
        LockClient client = servers.newClient(builder -> builder.commandTimeout(Duration.ofSeconds(1)));
        DistributedLock lock = client.getLock("nightly");
        servers.server().pause();
        try {
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(lock::tryLock).isInstanceOf(LockBackendException.class).hasMessageContaining("outcome unknown");
            }
        } finally {
            servers.server().resume();
        }
        // the first two cleanups were sent before the third acquire on the same connection: they failed
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
        await().atMost(Duration.ofSeconds(10)).until(() -> !warnings("answers again;").isEmpty());
        assertThat(warnings("could not clean up what this client may hold of lock 'nightly'")).hasSize(1);
        assertThat(stderr.text()).doesNotContain("could not release");
        Matcher count = COUNT.matcher(warnings("answers again;").get(0));
        assertThat(count.find()).isTrue();
        assertThat(Integer.parseInt(count.group(1))).isGreaterThanOrEqualTo(2);
    }
}
