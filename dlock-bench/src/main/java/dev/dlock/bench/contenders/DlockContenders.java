package dev.dlock.bench.contenders;

import dev.dlock.DistributedLock;
import dev.dlock.DistributedSemaphore;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.LockHandle;
import dev.dlock.RedisStore;
import dev.dlock.bench.Main;
import java.time.Duration;
import java.util.List;
import java.util.function.BiFunction;

/** dlock's locks as contenders: the plain lock, the fair lock and Redlock. */
final class DlockContenders {

    private DlockContenders() {
    }

    static Contender plain(List<String> uris, Contender.Settings settings) {
        return dlockContender(LockClient.builder().store(RedisStore.standalone(uris.get(0))), settings, LockClient::getLock);
    }

    static Contender fair(List<String> uris, Contender.Settings settings) {
        return dlockContender(LockClient.builder().store(RedisStore.standalone(uris.get(0))), settings, LockClient::getFairLock);
    }

    /** A dlock client from {@code builder}; {@code kind} picks the lock of a name (plain or fair). */
    private static Contender dlockContender(LockClientBuilder builder, Contender.Settings settings,
                                            BiFunction<LockClient, String, DistributedLock> kind) {
        builder.defaultLease(Duration.ofMillis(settings.watchdogLeaseMs())).clientName("dlock-bench");
        Duration thirdOfLease = Duration.ofMillis(settings.watchdogLeaseMs() / 3);
        if (LockClient.DEFAULT_COMMAND_TIMEOUT.compareTo(thirdOfLease) >= 0) {
            // a short watchdog lease (the many-held scenario) needs a command timeout below a third of it
            builder.commandTimeout(Duration.ofMillis(settings.watchdogLeaseMs() / 4));
        }
        LockClient client = builder.build();
        return new Contender() {
            @Override
            public BenchLock lock(String name) {
                return BenchLock.of(kind.apply(client, name));
            }

            @Override
            public String keyOf(String name) {
                return LockClient.DEFAULT_KEY_PREFIX + "{" + name + "}";
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    /**
     * A permit of dlock's semaphore as a lock: {@code lock()} takes a permit (watchdog lease),
     * {@code unlock()} gives it back. Each thread has its own {@link BenchLock}, so the permit it
     * holds is a field.
     */
    static Contender semaphore(List<String> uris, Contender.Settings settings) {
        LockClient client = LockClient.builder().store(RedisStore.standalone(uris.get(0))).clientName("dlock-bench")
                .defaultLease(Duration.ofMillis(settings.watchdogLeaseMs())).build();
        return new Contender() {
            @Override
            public BenchLock lock(String name) {
                DistributedSemaphore semaphore = client.getSemaphore(name, Main.SEMAPHORE_PERMITS);
                return new BenchLock() {
                    private LockHandle permit;

                    @Override
                    public void lock() {
                        permit = semaphore.acquireUninterruptibly();
                    }

                    @Override
                    public void unlock() {
                        permit.release();
                    }
                };
            }

            @Override
            public String keyOf(String name) {
                return LockClient.DEFAULT_KEY_PREFIX + "{" + name + "}";
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    /** dlock's Redlock: one client over all {@code uris}, the same lock API as {@link #plain}. */
    static Contender redlock(List<String> uris, Contender.Settings settings) {
        return dlockContender(LockClient.builder().store(RedisStore.redlock(uris.toArray(String[]::new))), settings,
                LockClient::getLock);
    }
}
