package dev.dlock.bench.contenders;

import dev.dlock.bench.Main;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** Redisson's locks as contenders: RLock, RFairLock and RedissonRedLock. */
final class RedissonContenders {

    private RedissonContenders() {
    }

    private static RedissonClient redissonClient(String uri, Contender.Settings settings) {
        Config config = new Config();
        config.useSingleServer().setAddress(uri);
        config.setLockWatchdogTimeout(settings.watchdogLeaseMs());
        return Redisson.create(config);
    }

    static Contender plain(List<String> uris, Contender.Settings settings) {
        return redissonContender(uris, settings, RedissonClient::getLock);
    }

    static Contender fair(List<String> uris, Contender.Settings settings) {
        return redissonContender(uris, settings, RedissonClient::getFairLock);
    }

    /** A Redisson client on the first URI; {@code kind} picks the lock of a name (plain or fair). */
    private static Contender redissonContender(List<String> uris, Contender.Settings settings,
                                               BiFunction<RedissonClient, String, RLock> kind) {
        RedissonClient client = redissonClient(uris.get(0), settings);
        return new Contender() {
            @Override
            public BenchLock lock(String name) {
                return BenchLock.of(kind.apply(client, name));
            }

            @Override
            public String keyOf(String name) {
                return name;
            }

            @Override
            public void close() {
                client.shutdown();
            }
        };
    }

    /**
     * A permit of Redisson's RPermitExpirableSemaphore as a lock: {@code lock()} takes a permit with a
     * lease of the watchdog lease (Redisson does not renew permits), {@code unlock()} gives it back.
     */
    static Contender semaphore(List<String> uris, Contender.Settings settings) {
        RedissonClient client = redissonClient(uris.get(0), settings);
        return new Contender() {
            @Override
            public BenchLock lock(String name) {
                RPermitExpirableSemaphore semaphore = client.getPermitExpirableSemaphore(name);
                semaphore.trySetPermits(Main.SEMAPHORE_PERMITS);
                return new BenchLock() {
                    private String permit;

                    @Override
                    public void lock() {
                        try {
                            permit = semaphore.acquire(settings.watchdogLeaseMs(), TimeUnit.MILLISECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException("interrupted while waiting for a permit", e);
                        }
                    }

                    @Override
                    public void unlock() {
                        semaphore.release(permit);
                    }
                };
            }

            @Override
            public String keyOf(String name) {
                return name;
            }

            @Override
            public void close() {
                client.shutdown();
            }
        };
    }

    static Contender redlock(List<String> uris, Contender.Settings settings) {
        List<RedissonClient> clients = new ArrayList<>();
        try {
            for (String uri : uris) {
                clients.add(redissonClient(uri, settings));
            }
        } catch (RuntimeException e) {
            clients.forEach(RedissonClient::shutdown);
            throw e;
        }
        return new Contender() {
            @Override
            public BenchLock lock(String name) {
                RLock[] locks = clients.stream().map(client -> client.getLock(name)).toArray(RLock[]::new);
                return BenchLock.of(new RedissonRedLock(locks));
            }

            @Override
            public String keyOf(String name) {
                return name;
            }

            @Override
            public void close() {
                clients.forEach(RedissonClient::shutdown);
            }
        };
    }
}
