package dev.dlock.bench.contenders;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The references written straight on Lettuce: the round trip, and the least a correct lock does
 * on one server and on a quorum of servers.
 */
public final class RawContenders {

    /** The fenced quorum floor's token floor on each server, and its lifetime (dlock's default). */
    private static final String FENCED_TOKEN_FLOOR = "fenced-floor:token-floor";
    private static final String TOKEN_FLOOR_TTL_MS = "600000";

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

    public static Contender quorumFloor(List<String> uris, Contender.Settings settings) {
        Quorum quorum = new Quorum(uris, COMPARE_AND_DELETE);
        SetArgs acquire = SetArgs.Builder.nx().px(settings.watchdogLeaseMs());
        return quorum.contender(name -> {
            String token = randomToken();
            String[] keys = {name};
            return new BenchLock() {
                @Override
                public void lock() {
                    if (!quorum.agree(node -> node.set(name, token, acquire).thenApply("OK"::equals))) {
                        throw new IllegalStateException("the raw quorum floor does not wait, and '" + name + "' is held");
                    }
                }

                @Override
                public void unlock() {
                    if (!quorum.agree(node -> node.<Long>evalsha(quorum.sha(0), ScriptOutputType.INTEGER, keys, token)
                            .thenApply(deleted -> deleted == 1L))) {
                        throw new IllegalMonitorStateException("'" + name + "' was not held by this token on a majority");
                    }
                }
            };
        });
    }

    /**
     * The raw quorum floor with a fencing token on every node by dlock's rule (server TIME in µs,
     * above a per-server token floor raised in the same script; the quorum's token is the highest
     * granted, and a release raises the floor to it where it is above the node's own): what a
     * quorum lock with failover-safe fencing tokens cannot do without, and nothing more.
     */
    public static Contender fencedQuorumFloor(List<String> uris, Contender.Settings settings) {
        Quorum quorum = new Quorum(uris, script("fenced_acquire.lua"), script("fenced_release.lua"));
        String lease = Long.toString(settings.watchdogLeaseMs());
        return quorum.contender(name -> {
            String owner = randomToken();
            String[] keys = {name, FENCED_TOKEN_FLOOR};
            AtomicLong token = new AtomicLong();
            return new BenchLock() {
                @Override
                public void lock() {
                    token.set(0);
                    if (!quorum.agree(node -> node.<List<Object>>evalsha(quorum.sha(0), ScriptOutputType.MULTI, keys, owner,
                            lease, TOKEN_FLOOR_TTL_MS).thenApply(reply -> Quorum.granted(reply, token)))) {
                        throw new IllegalStateException("the fenced quorum floor does not wait, and '" + name + "' is held");
                    }
                }

                @Override
                public void unlock() {
                    String quorumToken = Long.toString(token.get());
                    if (!quorum.agree(node -> node.<Long>evalsha(quorum.sha(1), ScriptOutputType.INTEGER, keys, owner,
                            quorumToken, TOKEN_FLOOR_TTL_MS).thenApply(released -> released == 1L))) {
                        throw new IllegalMonitorStateException("'" + name + "' was not held by this owner on a majority");
                    }
                }
            };
        });
    }

    /**
     * One raw Lettuce connection per server, scripts loaded on each, and the majority rule: the
     * quorum floors here and {@link dev.dlock.bench.costs.RedlockScriptFloor}'s raw sending of dlock's scripts.
     */
    public static final class Quorum implements AutoCloseable {

        private final List<RedisClient> clients = new ArrayList<>();
        private final List<RedisAsyncCommands<String, String>> nodes = new ArrayList<>();
        private final List<String> shas = new ArrayList<>();
        private final int majority;

        public Quorum(List<String> uris, String... scripts) {
            for (String uri : uris) {
                RedisClient client = RedisClient.create(uri);
                clients.add(client);
                nodes.add(client.connect().async());
            }
            for (String script : scripts) {
                String sha = null;
                // loaded up front so that every call is a plain EVALSHA; a script's SHA-1 is the same everywhere
                for (RedisAsyncCommands<String, String> node : nodes) {
                    sha = node.getStatefulConnection().sync().scriptLoad(script);
                }
                shas.add(sha);
            }
            majority = nodes.size() / 2 + 1;
        }

        public String sha(int script) {
            return shas.get(script);
        }

        /**
         * An acquire script's reply, {1, token, ...} when this node granted: the hold's token is the
         * highest the granting nodes gave, kept in {@code token}.
         */
        public static boolean granted(List<Object> reply, AtomicLong token) {
            if ((Long) reply.get(0) != 1L) {
                return false;
            }
            token.accumulateAndGet(Long.parseLong(String.valueOf(reply.get(1))), Math::max);
            return true;
        }

        /** Sends the call to every node at once: true once a majority answered true. */
        public boolean agree(Function<RedisAsyncCommands<String, String>, CompletionStage<Boolean>> call) {
            List<CompletableFuture<Boolean>> replies = new ArrayList<>();
            for (RedisAsyncCommands<String, String> node : nodes) {
                replies.add(call.apply(node).toCompletableFuture());
            }
            return awaitMajority(replies, majority) >= majority;
        }

        Contender contender(Function<String, BenchLock> lockNamed) {
            return new Contender() {
                @Override
                public BenchLock lock(String name) {
                    return lockNamed.apply(name);
                }

                @Override
                public String keyOf(String name) {
                    return name;
                }

                @Override
                public void close() {
                    Quorum.this.close();
                }
            };
        }

        @Override
        public void close() {
            clients.forEach(client -> client.shutdown(Duration.ZERO, Duration.ofSeconds(1)));
        }
    }

    /** A Lua script of the bench's own, read from its resource next to this class. */
    static String script(String name) {
        try (InputStream in = RawContenders.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("no resource " + name + " next to " + RawContenders.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
