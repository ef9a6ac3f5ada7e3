package dev.dlock.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that runs one or more independent {@link RedisServer}s for a test class.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisServers redis = RedisServers.standalone();
 * }</pre>
 *
 * <p><b>Static field</b>: the servers start once in {@code beforeAll} and stop in {@code afterAll}
 * (also when tests fail). After <em>each</em> test, every server is brought back to a healthy, empty
 * state so tests cannot affect each other: a paused server is resumed, a killed server is restarted
 * on the same port, a closed server is replaced by a new one (on a new port), and then {@code
 * FLUSHALL} is sent. Server-side state other than keys (script cache, {@code CONFIG SET} changes,
 * client connections) survives between tests unless the server was restarted.
 *
 * <p><b>Instance field</b>: the servers start in {@code beforeEach} and stop in {@code afterEach},
 * so each test gets fresh processes (slower, roughly 10-50 ms per server).
 *
 * <p>Each instance owns its processes; nothing is shared between test classes. Processes still
 * alive when the JVM exits are killed by a shutdown hook. The accessors throw {@link
 * IllegalStateException} until the servers have been started by JUnit.
 */
public final class RedisServers
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    private final int count;
    private final List<String> extraArgs;

    private List<RedisServer> servers;
    private boolean classScoped;
    // @Nested classes inherit the extension and call beforeAll/afterAll again on the same instance.
    private int classDepth;

    private RedisServers(int count, List<String> extraArgs) {
        if (count < 1) {
            throw new IllegalArgumentException("need at least one server, got " + count);
        }
        this.count = count;
        this.extraArgs = List.copyOf(extraArgs);
    }

    /** @return an extension running a single server */
    public static RedisServers standalone() {
        return new RedisServers(1, List.of());
    }

    /**
     * @param n number of servers, at least 1
     * @return an extension running {@code n} independent masters (no replication between them), as
     *     used by multi-master algorithms such as Redlock
     */
    public static RedisServers masters(int n) {
        return new RedisServers(n, List.of());
    }

    /**
     * @param extraArgs extra {@code redis-server} arguments for every server, appended after the
     *     defaults (see {@link RedisServer#start(String...)}) and after earlier {@code withArgs} calls
     * @return a new, not yet started extension with the combined arguments
     * @throws IllegalStateException if this extension is already running
     */
    public synchronized RedisServers withArgs(String... extraArgs) {
        if (servers != null) {
            throw new IllegalStateException("configure RedisServers before JUnit starts it");
        }
        List<String> args = new ArrayList<>(this.extraArgs);
        args.addAll(List.of(extraArgs));
        return new RedisServers(count, args);
    }

    /** @return the first (or only) server */
    public RedisServer server() {
        return get(0);
    }

    /**
     * @param index 0-based position in the order the servers were started
     * @return the server at {@code index}
     */
    public synchronized RedisServer get(int index) {
        return started().get(index);
    }

    /** @return all servers in index order (an immutable snapshot) */
    public synchronized List<RedisServer> all() {
        return List.copyOf(started());
    }

    /** @return {@code redis://127.0.0.1:<port>} of every server, in index order */
    public synchronized List<String> uris() {
        return started().stream().map(RedisServer::uri).collect(Collectors.toUnmodifiableList());
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (servers == null) {
            servers = startAll();
            classScoped = true;
            classDepth = 1;
        } else if (classScoped) {
            classDepth++;
        }
    }

    @Override
    public synchronized void beforeEach(ExtensionContext context) {
        // Already started means a static field (beforeAll ran): keep the class-wide servers.
        if (servers == null) {
            servers = startAll();
            classScoped = false;
        }
    }

    @Override
    public synchronized void afterEach(ExtensionContext context) {
        if (servers == null) {
            return;
        }
        if (classScoped) {
            heal();
        } else {
            stopAll();
        }
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (servers != null && classScoped && --classDepth == 0) {
            stopAll();
        }
    }

    @Override
    public synchronized String toString() {
        return "RedisServers" + (servers == null ? "[" + count + " not started]" : servers);
    }

    private List<RedisServer> started() {
        if (servers == null) {
            throw new IllegalStateException(
                    "Redis servers are not running: register the field with @RegisterExtension and use it inside tests");
        }
        return servers;
    }

    private List<RedisServer> startAll() {
        String[] args = extraArgs.toArray(String[]::new);
        List<RedisServer> started = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) {
                started.add(RedisServer.start(args));
            }
            return started;
        } catch (RuntimeException | Error e) {
            started.forEach(RedisServer::close);
            throw e;
        }
    }

    private void heal() {
        for (int i = 0; i < servers.size(); i++) {
            RedisServer server = servers.get(i);
            if (server.isPaused()) {
                server.resume();
            }
            if (server.isClosed()) {
                // The test closed it, which gave up its port; only a new server on a new port is possible.
                server = RedisServer.start(extraArgs.toArray(String[]::new));
                servers.set(i, server);
            } else if (!server.isRunning()) {
                server.restart();
            }
            server.flushAll();
        }
    }

    private void stopAll() {
        RuntimeException failure = null;
        for (RedisServer server : servers) {
            try {
                server.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        servers = null;
        if (failure != null) {
            throw failure;
        }
    }
}
