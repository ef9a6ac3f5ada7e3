package dev.dlock.bench;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiFunction;
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** The contenders and references, by the name used on the command line and in the report. */
public enum Contenders {

    /** One PING on one Lettuce connection: the round trip every figure is measured against. */
    RTT("1 RTT", Contenders::ping),
    /** The least a correct single-node lock does: SET NX PX, then compare-and-delete by EVALSHA. */
    FLOOR("raw floor", Contenders::floor),
    DLOCK("dlock", Contenders::dlock),
    REDISSON("Redisson", Contenders::redisson),
    /** dlock's fair lock ({@code LockClient.getFairLock}): granted in the order it was asked for. */
    DLOCK_FAIR("dlock fair", Contenders::dlockFair),
    /** Redisson's fair lock ({@code RedissonClient.getFairLock}, an RFairLock). */
    REDISSON_FAIR("Redisson fair", Contenders::redissonFair),
    /**
     * The least a correct quorum lock does, on all the given servers: SET NX PX on every server at
     * once, done when a majority said OK; then compare-and-delete on every server, done when a
     * majority answered. No retries, no validity arithmetic, no tokens.
     */
    QUORUM_FLOOR("raw quorum floor", Contenders::quorumFloor),
    /** dlock's Redlock over all the given servers. */
    DLOCK_REDLOCK("dlock Redlock", Contenders::dlockRedlock),
    /** RedissonRedLock over one Redisson client per server. */
    REDISSON_REDLOCK("RedissonRedLock", Contenders::redissonRedlock);

    private final String label;
    private final Contender.Factory factory;

    Contenders(String label, Contender.Factory factory) {
        this.label = label;
        this.factory = factory;
    }

    public String label() {
        return label;
    }

    /**
     * Why this build cannot run the contender, if it cannot; checked before a run is started so
     * the report can show the reason instead of a figure.
     */
    public Optional<String> unavailableReason() {
        return Optional.empty();
    }

    /** Connects; throws {@link Unavailable} when this build has no such contender. */
    public Contender open(List<String> uris, Contender.Settings settings) {
        return factory.open(uris, settings);
    }

    public static Contenders byName(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_'));
    }

    private static Contender ping(List<String> uris, Contender.Settings settings) {
        RedisClient client = RedisClient.create(uris.get(0));
        StatefulRedisConnection<String, String> connection = client.connect();
        RedisCommands<String, String> commands = connection.sync();
        return new Contender() {
            @Override
            public BenchLock lock(String name) {
                return new BenchLock() {
                    @Override
                    public void lock() {
                        commands.ping();
                    }

                    @Override
                    public void unlock() {
                    }
                };
            }

            @Override
            public String keyOf(String name) {
                return name;
            }

            @Override
            public void close() {
                connection.close();
                client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
            }
        };
    }

    private static final String COMPARE_AND_DELETE =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

    private static Contender floor(List<String> uris, Contender.Settings settings) {
        RedisClient client = RedisClient.create(uris.get(0));
        StatefulRedisConnection<String, String> connection = client.connect();
        RedisCommands<String, String> commands = connection.sync();
        String release = commands.scriptLoad(COMPARE_AND_DELETE);
        SetArgs acquire = SetArgs.Builder.nx().px(settings.watchdogLeaseMs());
        return new Contender() {
            @Override
            public BenchLock lock(String name) {
                String token = randomToken();
                String[] keys = {name};
                return new BenchLock() {
                    @Override
                    public void lock() {
                        if (!"OK".equals(commands.set(name, token, acquire))) {
                            throw new IllegalStateException("the raw floor does not wait, and '" + name + "' is held");
                        }
                    }

                    @Override
                    public void unlock() {
                        Long deleted = commands.evalsha(release, ScriptOutputType.INTEGER, keys, token);
                        if (deleted != 1L) {
                            throw new IllegalMonitorStateException("'" + name + "' was not held by this token");
                        }
                    }
                };
            }

            @Override
            public String keyOf(String name) {
                return name;
            }

            @Override
            public void close() {
                connection.close();
                client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
            }
        };
    }

    private static Contender quorumFloor(List<String> uris, Contender.Settings settings) {
        List<RedisClient> clients = new ArrayList<>();
        List<RedisAsyncCommands<String, String>> nodes = new ArrayList<>();
        for (String uri : uris) {
            RedisClient client = RedisClient.create(uri);
            clients.add(client);
            nodes.add(client.connect().async());
        }
        String release = nodes.get(0).getStatefulConnection().sync().scriptLoad(COMPARE_AND_DELETE);
        for (RedisAsyncCommands<String, String> node : nodes.subList(1, nodes.size())) {
            node.getStatefulConnection().sync().scriptLoad(COMPARE_AND_DELETE);
        }
        SetArgs acquire = SetArgs.Builder.nx().px(settings.watchdogLeaseMs());
        int quorum = nodes.size() / 2 + 1;
        return new Contender() {
            @Override
            public BenchLock lock(String name) {
                String token = randomToken();
                String[] keys = {name};
                return new BenchLock() {
                    @Override
                    public void lock() {
                        List<CompletableFuture<Boolean>> replies = new ArrayList<>();
                        for (RedisAsyncCommands<String, String> node : nodes) {
                            replies.add(node.set(name, token, acquire).toCompletableFuture().thenApply("OK"::equals));
                        }
                        if (awaitMajority(replies, quorum) < quorum) {
                            throw new IllegalStateException("the raw quorum floor does not wait, and '" + name + "' is held");
                        }
                    }

                    @Override
                    public void unlock() {
                        List<CompletableFuture<Boolean>> replies = new ArrayList<>();
                        for (RedisAsyncCommands<String, String> node : nodes) {
                            replies.add(node.<Long>evalsha(release, ScriptOutputType.INTEGER, keys, token)
                                    .toCompletableFuture().thenApply(deleted -> deleted == 1L));
                        }
                        if (awaitMajority(replies, quorum) < quorum) {
                            throw new IllegalMonitorStateException("'" + name + "' was not held by this token on a majority");
                        }
                    }
                };
            }

            @Override
            public String keyOf(String name) {
                return name;
            }

            @Override
            public void close() {
                clients.forEach(client -> client.shutdown(Duration.ZERO, Duration.ofSeconds(1)));
            }
        };
    }

    /** A raw floor's owner token: 128 random bits, as hex. */
    private static String randomToken() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong()) + Long.toHexString(ThreadLocalRandom.current().nextLong());
    }

    /** Waits until a majority answered true, or every node answered; returns how many said true. */
    private static int awaitMajority(List<CompletableFuture<Boolean>> replies, int quorum) {
        AtomicInteger yes = new AtomicInteger();
        AtomicInteger answered = new AtomicInteger();
        CompletableFuture<Integer> decided = new CompletableFuture<>();
        for (CompletableFuture<Boolean> reply : replies) {
            reply.whenComplete((ok, error) -> {
                int yeses = Boolean.TRUE.equals(ok) ? yes.incrementAndGet() : yes.get();
                if (yeses >= quorum || answered.incrementAndGet() == replies.size()) {
                    decided.complete(yeses);
                }
            });
        }
        return decided.join();
    }

    private static Contender dlock(List<String> uris, Contender.Settings settings) {
        return dlockContender(LockClient.builder().redisUri(uris.get(0)), settings, LockClient::getLock);
    }

    private static Contender dlockFair(List<String> uris, Contender.Settings settings) {
        return dlockContender(LockClient.builder().redisUri(uris.get(0)), settings, LockClient::getFairLock);
    }

    /** A dlock client from {@code builder}; {@code kind} picks the lock of a name (plain or fair). */
    private static Contender dlockContender(LockClient.Builder builder, Contender.Settings settings,
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
                DistributedLock lock = kind.apply(client, name);
                return new BenchLock() {
                    @Override
                    public void lock() {
                        lock.lock();
                    }

                    @Override
                    public void unlock() {
                        lock.unlock();
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

    /** dlock's Redlock: one client over all {@code uris}, the same lock API as {@link #dlock}. */
    private static Contender dlockRedlock(List<String> uris, Contender.Settings settings) {
        return dlockContender(LockClient.builder().redlockNodes(uris.toArray(String[]::new)), settings,
                LockClient::getLock);
    }

    private static RedissonClient redissonClient(String uri, Contender.Settings settings) {
        Config config = new Config();
        config.useSingleServer().setAddress(uri);
        config.setLockWatchdogTimeout(settings.watchdogLeaseMs());
        return Redisson.create(config);
    }

    private static Contender redisson(List<String> uris, Contender.Settings settings) {
        return redissonContender(uris, settings, RedissonClient::getLock);
    }

    private static Contender redissonFair(List<String> uris, Contender.Settings settings) {
        return redissonContender(uris, settings, RedissonClient::getFairLock);
    }

    /** A Redisson client on the first URI; {@code kind} picks the lock of a name (plain or fair). */
    private static Contender redissonContender(List<String> uris, Contender.Settings settings,
                                               BiFunction<RedissonClient, String, RLock> kind) {
        RedissonClient client = redissonClient(uris.get(0), settings);
        return new Contender() {
            @Override
            public BenchLock lock(String name) {
                return wrap(kind.apply(client, name));
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

    private static Contender redissonRedlock(List<String> uris, Contender.Settings settings) {
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
                return wrap(new RedissonRedLock(locks));
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

    private static BenchLock wrap(RLock lock) {
        return new BenchLock() {
            @Override
            public void lock() {
                lock.lock();
            }

            @Override
            public void unlock() {
                lock.unlock();
            }
        };
    }
}
