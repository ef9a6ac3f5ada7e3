package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.LockClient;
import dev.dlock.RedisStore;
import dev.dlock.testing.RedisServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;

/**
 * What used to make {@code @WithLock} run without a lock, or with one lock for everything, with no
 * word: each now fails the startup (or the call), naming the method.
 */
class WithLockTrapsTest {
    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private ApplicationContextRunner runner() {
        return TestContexts.runner(redis.server());
    }

    private LockClient ownClient() {
        return LockClient.builder().store(RedisStore.standalone(redis.server().uri())).clientName("own").build();
    }

    @Test
    void withTheAutoConfiguredClientOffTheApplicationsOwnClientLocks() {
        runner().withPropertyValues("dlock.enabled=false")
                .withBean(LockClient.class, this::ownClient, definition -> definition.setDestroyMethodName("close"))
                .withBean(Accounts.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(Accounts.class).withdraw(7L)).as("held inside").isTrue();
                });
    }

    @Test
    void withNoClientAtAllAnAnnotatedMethodFailsTheStartupAndTheReportNeverSuggestsDisabling() {
        runner().withPropertyValues("dlock.enabled=false").withBean(Accounts.class).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            assertThat(failure).hasStackTraceContaining(Accounts.class.getName() + ".withdraw()")
                    .hasStackTraceContaining("cannot lock: the application has no LockClient bean");
            FailureAnalysis analysis = new DlockFailureAnalyzer.NoLockClient().analyze(failure);
            assertThat(analysis.getDescription()).contains("Accounts.withdraw()").contains("no LockClient bean");
            assertThat(analysis.getAction()).contains("define a LockClient bean").doesNotContain("set dlock.enabled");
        });
    }

    @Test
    void aLazyAnnotatedBeanWithNoClientFailsAtTheCall() {
        runner().withPropertyValues("dlock.enabled=false")
                .withUserConfiguration(LazyAccounts.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    Accounts accounts = context.getBean(Accounts.class);
                    assertThatThrownBy(() -> accounts.withdraw(7L)).isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("Accounts.withdraw() cannot lock").hasMessageContaining("no LockClient bean");
                    assertThat(accounts.calls).as("calls that ran").isZero();
                });
    }

    @Test
    void severalClientsWithoutAPrimaryFailTheStartupNamingThem() {
        runner().withBean("firstClient", LockClient.class, this::ownClient, definition -> definition.setDestroyMethodName("close"))
                .withBean("secondClient", LockClient.class, this::ownClient, definition -> definition.setDestroyMethodName("close"))
                .withBean(Accounts.class).run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("several LockClient beans (")
                        .hasStackTraceContaining("secondClient").hasStackTraceContaining("@Primary"));
    }

    @Test
    void anUnknownVariableInTheKeyFailsTheStartupNamingMethodAndVariable() {
        runner().withBean(Typo.class).run(context -> assertThat(context.getStartupFailure())
                .hasStackTraceContaining("@WithLock on " + Typo.class.getName() + ".withdraw()")
                .hasStackTraceContaining("names #acountId, which is no parameter of the method")
                .hasStackTraceContaining("#accountId"));
    }

    @Test
    void aNullVariableOrOperandInTheKeyThrowsAtTheCall() {
        runner().withBean(Accounts.class).run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            assertThatThrownBy(() -> accounts.withdraw(null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Accounts.withdraw()").hasMessageContaining("gave 'acct:null' because #accountId is null");
            assertThatThrownBy(() -> accounts.ship(new Order(null))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("because #order.customer is null");
            assertThat(accounts.calls).as("calls that ran").isZero();
            assertThat(accounts.report("2026")).as("a name that merely holds \"null\"").isTrue();
        });
    }

    @Test
    void methodsTheProxyCannotSeeFailTheStartupNamingThem() {
        for (Class<?> bean : new Class<?>[] {PrivateMethod.class, StaticMethod.class, FinalMethod.class}) {
            runner().withBean(bean).run(context -> assertThat(context.getStartupFailure())
                    .hasStackTraceContaining("@WithLock on " + bean.getName() + ".run()")
                    .hasStackTraceContaining("so Spring's proxy never sees its calls"));
        }
    }

    @Test
    void packagePrivateAndProtectedMethodsLock() {
        runner().withBean(Accounts.class).run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            assertThat(accounts.packagePrivate()).isTrue();
            assertThat(accounts.protectedOne()).isTrue();
        });
    }

    record Order(String customer) {
    }

    static class Accounts {
        private final ObjectProvider<LockClient> client;
        int calls;

        Accounts(ObjectProvider<LockClient> client) {
            this.client = client;
        }

        @WithLock(key = "'acct:' + #accountId", waitTime = "5s")
        public boolean withdraw(Long accountId) {
            calls++;
            return client.getObject().getLock("acct:" + accountId).isHeldByCurrentThread();
        }

        @WithLock(key = "'order:' + #order.customer", waitTime = "5s")
        public void ship(Order order) {
            calls++;
        }

        @WithLock(key = "'nullable-report:' + #year", waitTime = "5s")
        public boolean report(String year) {
            return client.getObject().getLock("nullable-report:" + year).isHeldByCurrentThread();
        }

        @WithLock(key = "'package-private'", waitTime = "5s")
        boolean packagePrivate() {
            return client.getObject().getLock("package-private").isHeldByCurrentThread();
        }

        @WithLock(key = "'protected'", waitTime = "5s")
        protected boolean protectedOne() {
            return client.getObject().getLock("protected").isHeldByCurrentThread();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class LazyAccounts {
        @Bean
        @Lazy
        Accounts accounts(ObjectProvider<LockClient> client) {
            return new Accounts(client);
        }
    }

    static class Typo {
        @WithLock(key = "'acct:' + #acountId")
        public void withdraw(long accountId) {
        }
    }

    static class PrivateMethod {
        @WithLock
        private void run() {
        }
    }

    static class StaticMethod {
        @WithLock
        public static void run() {
        }
    }

    static class FinalMethod {
        @WithLock
        public final void run() {
        }
    }
}
