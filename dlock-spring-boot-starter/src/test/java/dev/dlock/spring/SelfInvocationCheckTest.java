package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.testing.RedisServers;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Lazy;

/**
 * A {@code @WithLock} method called on {@code this} from its own class runs without the lock: the
 * startup reads the bean classes' bytecode and says so, naming caller and callee, or refuses to
 * start with {@code dlock.self-invocation=fail}; a call through the bean itself is no such call.
 */
@ExtendWith(OutputCaptureExtension.class)
class SelfInvocationCheckTest {
    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private static List<String> warnings(CapturedOutput output) {
        return output.toString().lines().filter(line -> line.contains(" WARN ") && line.contains("WithLockMethodCheck"))
                .toList();
    }

    @Test
    void eachCallOnThisIsAWarningNamingCallerAndCallee(CapturedOutput output) {
        try (ConfigurableApplicationContext context = TestContexts.withBeans(redis.server(),
                List.of(Accounts.class, Clean.class))) {
            Accounts accounts = context.getBean(Accounts.class);
            assertThat(accounts.transfer(1, 2)).isTrue();
            assertThat(accounts.viaSelf(3)).isTrue();
        }
        String withdraw = Accounts.class.getName() + ".withdraw()";
        assertThat(warnings(output)).satisfiesExactlyInAnyOrder(
                line -> assertThat(line).contains(Accounts.class.getName() + ".transfer() calls " + withdraw
                                + " on this")
                        .contains("SelfInvocationCheckTest.java:").contains("runs without the lock"),
                line -> assertThat(line).contains(Accounts.class.getName() + ".later() calls " + withdraw + " on this"),
                line -> assertThat(line).contains(Accounts.class.getName() + ".branching() calls " + withdraw
                        + " on this"));
    }

    @Test
    void failRefusesToStartNamingTheCalls(CapturedOutput output) {
        assertThatThrownBy(() -> TestContexts.withBeans(redis.server(), List.of(Accounts.class),
                        "dlock.self-invocation=fail").close())
                .hasStackTraceContaining("transfer() calls " + Accounts.class.getName() + ".withdraw() on this");
        StartupFailureReportTest.assertReported(output.toString(), "are called on this", "Call them through the bean");
    }

    @Test
    void ignoreDoesNotLook(CapturedOutput output) {
        TestContexts.withBeans(redis.server(), List.of(Accounts.class), "dlock.self-invocation=ignore").close();
        assertThat(warnings(output)).isEmpty();
    }

    static class Accounts {
        @Autowired
        @Lazy
        Accounts self;

        @WithLock(key = "'acct:' + #id", waitTime = "5s")
        public boolean withdraw(long id, int amount) {
            return amount > 0;
        }

        public boolean transfer(long from, long to) {
            return withdraw(from, 1) && self.withdraw(to, 1);
        }

        public BooleanSupplier later(long id) {
            return () -> withdraw(id, 3);
        }

        public boolean branching(long id, boolean big) {
            return withdraw(big ? id * 2 : id, big ? 100 : 1);
        }

        public boolean viaSelf(long id) {
            return self.withdraw(id, 4);
        }

        @WithLock(key = "'acct:' + #id", waitTime = "5s")
        public boolean retry(long id, int left) {
            return left == 0 || retry(id, left - 1);
        }
    }

    static class Clean {
        @WithLock(key = "'clean'")
        public String run() {
            return String.valueOf(System.nanoTime() > 0 ? this.hashCode() : 0);
        }
    }
}
