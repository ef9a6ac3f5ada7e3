package dev.dlock.testing;

import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that runs one {@link PostgresServer} for a test class.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final PostgresServers postgres = PostgresServers.create();
 * }</pre>
 *
 * <p>The server starts in {@code beforeAll} and is closed in {@code afterAll}. After each test a
 * paused server is resumed and a stopped or killed one is started again on the same port; its data is
 * kept (tests use their own lock names).
 */
public final class PostgresServers implements BeforeAllCallback, AfterAllCallback, AfterEachCallback {

    private final List<String> settings;
    private PostgresServer server;
    private int classDepth;

    private PostgresServers(List<String> settings) {
        this.settings = settings;
    }

    /** @param settings extra server settings, {@code name=value} each (see {@link PostgresServer#start}) */
    public static PostgresServers create(String... settings) {
        return new PostgresServers(List.of(settings));
    }

    /** @return the running server */
    public synchronized PostgresServer server() {
        if (server == null) {
            throw new IllegalStateException("PostgresServers not started yet (use it as a static @RegisterExtension field)");
        }
        return server;
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (classDepth++ == 0) {
            server = PostgresServer.start(settings.toArray(String[]::new));
        }
    }

    @Override
    public synchronized void afterEach(ExtensionContext context) {
        if (server.isPaused()) {
            server.resume();
        }
        if (!server.isRunning()) {
            server.startAgain();
        }
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (--classDepth == 0 && server != null) {
            server.close();
            server = null;
        }
    }
}
