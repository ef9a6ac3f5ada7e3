package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.testing.RedisServers;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Every refusal of the starter at startup is in Spring Boot's "APPLICATION FAILED TO START" report,
 * with a Description naming what is wrong and an Action saying what to do, not a bare exception.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureReportTest {
    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(BadKey.class, List.of(), "key expression \"'order:' + #\" does not parse",
                        "Correct the SpEL expression"),
                Arguments.of(UnknownVariable.class, List.of(), "names #acount, which is no parameter",
                        "Name a parameter of the method"),
                Arguments.of(UnquotedKey.class, List.of(), "key expression \"nightly-report\" reads nightly, report",
                        "For a fixed lock name write name = \"nightly-report\""),
                Arguments.of(PermitKind.class, List.of(), "kind = PERMIT names a semaphore's permit",
                        "Use REENTRANT, FAIR, READ or WRITE"),
                Arguments.of(PrivateMethod.class, List.of(), "the method is private",
                        "Make it public, protected or package-private"),
                Arguments.of(BadDuration.class, List.of(), "waitTime \"5 parsecs\" is not a duration",
                        "Write a duration such as \"5s\""),
                Arguments.of(UnresolvedName.class, List.of(), "has a placeholder no property resolves",
                        "Define the property"),
                // Spring Boot's own report of a value that does not bind
                Arguments.of(Plain.class, List.of("dlock.store=mongo"), "Failed to bind properties under 'dlock.store'",
                        "Update your application's configuration"),
                Arguments.of(Plain.class, List.of("dlock.store=postgres", "dlock.redis.url=redis://127.0.0.1:1"),
                        "dlock.redis.url is set too", "Remove dlock.redis.url, or set dlock.store=redis"),
                Arguments.of(Plain.class, List.of("dlock.cluster-nodes=redis://127.0.0.1:1"),
                        "dlock.cluster-nodes is no longer read", "Rename dlock.cluster-nodes to dlock.redis.cluster.nodes"),
                Arguments.of(Plain.class, List.of("dlock.command-timeout=20s"),
                        "dlock.command-timeout (commandTimeout) PT20S must be shorter", "Correct the value named"),
                Arguments.of(Plain.class,
                        List.of("dlock.redis.url=redis://127.0.0.1:1", "dlock.redis.cluster.nodes=redis://127.0.0.1:2"),
                        "2 of dlock.redis.url, dlock.redis.cluster.nodes and dlock.redis.redlock.nodes are set",
                        "Set one of dlock.redis.url"),
                Arguments.of(Plain.class, List.of("dlock.store=postgres"), "there is no single DataSource bean",
                        "Configure spring.datasource.*"));
    }

    @ParameterizedTest
    @MethodSource("refusals")
    void theRefusalIsInSpringBootsReportWithDescriptionAndAction(Class<?> bean, List<String> properties,
                                                                   String description, String action,
                                                                   CapturedOutput output) {
        assertThatThrownBy(() -> TestContexts.withBeans(redis.server(), List.of(bean),
                properties.toArray(String[]::new)).close()).hasStackTraceContaining(description);
        assertReported(output.toString(), description, action);
    }

    /** The report as Spring Boot logs it: the banner, the Description, the Action. */
    static void assertReported(String output, String description, String action) {
        assertThat(output).contains("APPLICATION FAILED TO START");
        String report = output.substring(output.indexOf("APPLICATION FAILED TO START"));
        assertThat(report).contains("Description:");
        String described = report.substring(report.indexOf("Description:"));
        assertThat(described).contains(description).contains("Action:");
        assertThat(described.substring(described.indexOf("Action:"))).contains(action);
    }

    static class Plain {
    }

    static class BadKey {
        @WithLock(key = "'order:' + #")
        public void ship(String order) {
        }
    }

    static class UnknownVariable {
        @WithLock(key = "'account:' + #acount")
        public void withdraw(String account) {
        }
    }

    static class UnquotedKey {
        @WithLock(key = "nightly-report", onBusy = WithLock.OnBusy.SKIP)
        public void nightly() {
        }
    }

    static class PermitKind {
        @WithLock(kind = dev.dlock.LockKind.PERMIT)
        public void call() {
        }
    }

    static class PrivateMethod {
        public void call() {
            withdraw();
        }

        @WithLock
        private void withdraw() {
        }
    }

    static class BadDuration {
        @WithLock(waitTime = "5 parsecs")
        public void ship() {
        }
    }

    static class UnresolvedName {
        @WithLock(name = "${test.no-such-property}:nightly")
        public void nightly() {
        }
    }
}
