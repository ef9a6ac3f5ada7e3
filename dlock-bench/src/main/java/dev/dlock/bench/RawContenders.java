package dev.dlock.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The references written straight on Lettuce: the round trip, and the least a correct lock does
 * on one server and on a quorum of servers.
 */
final class RawContenders {

    private static final String COMPARE_AND_DELETE =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

    private RawContenders() {
    }

    static Contender ping(List<String> uris, Contender.Settings settings) {
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

    static Contender floor(List<String> uris, Contender.Settings settings) {
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

    static Contender quorumFloor(List<String> uris, Contender.Settings settings) {
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
    static int awaitMajority(List<CompletableFuture<Boolean>> replies, int quorum) {
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
}
