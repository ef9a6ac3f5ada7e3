package dev.dlock;

import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a test opened itself (servers, server groups, clients): closed after each test, the last
 * opened first, for tests that start their own servers rather than take them from {@link LockServers}.
 */
final class OpenResources implements AfterEachCallback {

    private final Deque<AutoCloseable> open = new ArrayDeque<>();

    /** Closes {@code resource} after the test, before anything opened earlier. */
    <T extends AutoCloseable> T track(T resource) {
        open.push(resource);
        return resource;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        Exception first = null;
        while (!open.isEmpty()) {
            try {
                open.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
