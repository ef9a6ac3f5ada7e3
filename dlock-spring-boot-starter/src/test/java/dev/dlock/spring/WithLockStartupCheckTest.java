package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.testing.RedisServers;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** A malformed annotation fails the startup, naming the method and the bad value. */
class WithLockStartupCheckTest {
    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private ApplicationContextRunner runner() {
        return TestContexts.runner(redis.server());
    }

    @Test
    void aKeyExpressionThatDoesNotParseFailsTheStartup() {
        runner().withBean(BadKey.class).run(context -> assertThat(context.getStartupFailure())
                .hasStackTraceContaining("BadKey.ship()")
                .hasStackTraceContaining("key expression \"'order:' + #order.(\" does not parse"));
    }

    @Test
    void aDurationThatDoesNotParseFailsTheStartup() {
        runner().withBean(BadWait.class).run(context -> assertThat(context.getStartupFailure())
                .hasStackTraceContaining("BadWait.ship()").hasStackTraceContaining("waitTime \"5 parsecs\" is not a duration"));
    }

    @Test
    void skipOnAMethodReturningAPrimitiveFailsTheStartup() {
        runner().withBean(SkipPrimitive.class).run(context -> assertThat(context.getStartupFailure())
                .hasStackTraceContaining("SkipPrimitive.count()").hasStackTraceContaining("onBusy = SKIP"));
    }

    @Test
    void anAsynchronousReturnTypeFailsTheStartup() {
        runner().withBean(Asynchronous.class).run(context -> assertThat(context.getStartupFailure())
                .hasStackTraceContaining("Asynchronous.later()").hasStackTraceContaining("CompletableFuture")
                .hasStackTraceContaining("return a Mono or a Flux"));
    }

    @Test
    void aNameWrittenAsTheKeyFailsTheStartupNamingTheMethod() {
        runner().withBean(UnquotedKey.class).run(context -> assertThat(context.getStartupFailure())
                .hasStackTraceContaining("UnquotedKey.nightly()")
                .hasStackTraceContaining("key expression \"nightly-report\" reads nightly, report as properties")
                .hasStackTraceContaining("name = \"nightly-report\""));
    }

    @Test
    void aKeyAndANameTogetherFailTheStartup() {
        runner().withBean(KeyAndName.class).run(context -> assertThat(context.getStartupFailure())
                .hasStackTraceContaining("KeyAndName.nightly()").hasStackTraceContaining("both key"));
    }

    @Test
    void aNameWithAnUnresolvedPlaceholderFailsTheStartup() {
        runner().withBean(UnresolvedName.class).run(context -> assertThat(context.getStartupFailure())
                .hasStackTraceContaining("UnresolvedName.nightly()")
                .hasStackTraceContaining("name \"${test.no-such-property}:nightly\" has a placeholder"));
    }

    @Test
    void aWellFormedBeanStarts() {
        runner().withBean(WellFormed.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(WellFormed.class).ship(new Order("1"))).isEqualTo("1");
        });
    }

    record Order(String id) {
    }

    static class BadKey {
        @WithLock(key = "'order:' + #order.(")
        public void ship(Order order) {
        }
    }

    static class BadWait {
        @WithLock(key = "'order:' + #order.id", waitTime = "5 parsecs")
        public void ship(Order order) {
        }
    }

    static class SkipPrimitive {
        @WithLock(onBusy = WithLock.OnBusy.SKIP)
        public int count() {
            return 1;
        }
    }

    static class Asynchronous {
        @WithLock
        public CompletableFuture<String> later() {
            return CompletableFuture.completedFuture("x");
        }
    }

    static class UnquotedKey {
        @WithLock(key = "nightly-report", onBusy = WithLock.OnBusy.SKIP)
        public void nightly() {
        }
    }

    static class KeyAndName {
        @WithLock(key = "'nightly'", name = "nightly")
        public void nightly() {
        }
    }

    static class UnresolvedName {
        @WithLock(name = "${test.no-such-property}:nightly")
        public void nightly() {
        }
    }

    static class WellFormed {
        @WithLock(key = "'order:' + #order.id + ':' + #root.method.name + ':' + args.length + ':' + target.hashCode()",
                waitTime = "1s", leaseTime = "10s")
        public String ship(Order order) {
            return order.id();
        }
    }
}
