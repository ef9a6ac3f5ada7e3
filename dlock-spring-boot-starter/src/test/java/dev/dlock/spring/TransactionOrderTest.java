package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockClient;
import dev.dlock.testing.RedisServers;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The lock advice runs outside {@code @Transactional}: the lock is released only after the
 * commit, so the next holder sees the committed row. The same test with the order flipped (the
 * transaction outside the lock) shows the next holder getting in before the commit.
 */
class TransactionOrderTest {
    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private static ConfigurableApplicationContext start(Class<?> configuration) {
        ConfigurableApplicationContext context = TestContexts.start(redis.server(), configuration,
                "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
        jdbc.execute("create table orders (id varchar(36) primary key)");
        jdbc.execute("create table counter (id int primary key, n int not null)");
        jdbc.update("insert into counter values (1, 0)");
        return context;
    }

    @Test
    void theNextHolderSeesTheCommittedRow() throws Exception {
        try (ConfigurableApplicationContext context = start(LockOutsideTransaction.class)) {
            Outcome outcome = secondCallerWhileFirstCommits(context.getBean(Orders.class));
            assertThat(outcome.heldAtCommit).as("lock held while committing").isTrue();
            assertThat(outcome.rowsSeenBySecond).as("rows the second holder saw").isEqualTo(1);
        }
    }

    @Test
    void withTheTransactionOutsideTheLockTheNextHolderGetsInBeforeTheCommit() throws Exception {
        try (ConfigurableApplicationContext context = start(TransactionOutsideLock.class)) {
            Orders orders = context.getBean(Orders.class);
            // the second caller can get in here, so the commit waits for it however slow the machine
            orders.commitWaitSeconds = 30;
            Outcome outcome = secondCallerWhileFirstCommits(orders);
            assertThat(outcome.heldAtCommit).as("lock held while committing").isFalse();
            assertThat(outcome.rowsSeenBySecond).as("rows the second holder saw").isZero();
        }
    }

    @Test
    void readThenWriteUnderTheLockLosesNoUpdate() throws Exception {
        try (ConfigurableApplicationContext context = start(LockOutsideTransaction.class)) {
            Orders orders = context.getBean(Orders.class);
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    done.add(pool.submit(orders::increment));
                }
                for (Future<?> f : done) {
                    f.get(60, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(context.getBean(JdbcTemplate.class).queryForObject("select n from counter", Integer.class)).isEqualTo(100);
        }
    }

    private record Outcome(boolean heldAtCommit, int rowsSeenBySecond) {
    }

    /**
     * The first caller inserts a row and, before its commit, gives a second caller up to
     * {@link Orders#commitWaitSeconds} to get into the lock and count the committed rows.
     */
    private static Outcome secondCallerWhileFirstCommits(Orders orders) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            CountDownLatch firstInside = new CountDownLatch(1);
            CountDownLatch secondCounted = new CountDownLatch(1);
            Future<?> first = pool.submit(() -> orders.insert("o-1", firstInside, secondCounted));
            assertThat(firstInside.await(30, TimeUnit.SECONDS)).isTrue();
            Future<Integer> second = pool.submit(() -> orders.countRows(secondCounted));
            first.get(60, TimeUnit.SECONDS);
            return new Outcome(orders.heldAtLastCommit(), second.get(60, TimeUnit.SECONDS));
        } finally {
            pool.shutdownNow();
        }
    }

    static class Orders {
        private final JdbcTemplate jdbc;
        private final LockClient client;

        Orders(JdbcTemplate jdbc, LockClient client) {
            this.jdbc = jdbc;
            this.client = client;
        }

        /** Whether the lock was held by the committing thread at the last commit of {@link #insert}. */
        volatile boolean heldAtLastCommit;
        /** How long a commit of {@link #insert} waits for a second caller to get into the lock. */
        volatile long commitWaitSeconds = 1;

        @WithLock(key = "'orders'", waitTime = "30s")
        @Transactional
        public void insert(String id, CountDownLatch inside, CountDownLatch secondCounted) {
            jdbc.update("insert into orders (id) values (?)", id);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void beforeCommit(boolean readOnly) {
                    heldAtLastCommit = client.getLock("orders").isHeldByCurrentThread();
                    try {
                        secondCounted.await(commitWaitSeconds, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            inside.countDown();
        }

        public boolean heldAtLastCommit() {
            return heldAtLastCommit;
        }

        @WithLock(key = "'orders'", waitTime = "30s")
        @Transactional(readOnly = true)
        public int countRows(CountDownLatch counted) {
            int rows = jdbc.queryForObject("select count(*) from orders", Integer.class);
            counted.countDown();
            return rows;
        }

        @WithLock(key = "'counter'", waitTime = "30s")
        @Transactional
        public void increment() {
            int n = jdbc.queryForObject("select n from counter where id = 1", Integer.class);
            jdbc.update("update counter set n = ? where id = 1", n + 1);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({DlockAutoConfiguration.class, DataSourceAutoConfiguration.class,
            DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
            TransactionAutoConfiguration.class})
    static class LockOutsideTransaction {
        @Bean
        Orders orders(JdbcTemplate jdbc, LockClient client) {
            return new Orders(jdbc, client);
        }
    }

    /** The order reversed on purpose: transactions outermost. */
    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = Ordered.HIGHEST_PRECEDENCE)
    @ImportAutoConfiguration({DlockAutoConfiguration.class, DataSourceAutoConfiguration.class,
            DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
            TransactionAutoConfiguration.class})
    static class TransactionOutsideLock {
        @Bean
        Orders orders(JdbcTemplate jdbc, LockClient client) {
            return new Orders(jdbc, client);
        }
    }
}
