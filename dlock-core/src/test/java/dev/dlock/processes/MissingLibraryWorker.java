package dev.dlock.processes;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.PostgresStore;
import dev.dlock.RedisStore;
import dev.dlock.Store;
import dev.dlock.ZooKeeperStore;
import java.util.concurrent.Callable;

/**
 * A separate JVM whose class path lacks some of the stores' client libraries (the test drops their jars):
 * what each store does then. Args: a PostgreSQL JDBC URL. Prints one line per check: {@code NAME outcome},
 * the outcome being what the check returned or {@code ExceptionClass: message}.
 */
public final class MissingLibraryWorker {

    private MissingLibraryWorker() {
    }

    public static void main(String[] args) {
        report("LETTUCE", () -> Class.forName("io.lettuce.core.RedisClient").getName());
        report("MEMORY", () -> {
            try (LockClient client = LockClient.create(Store.inMemory())) {
                return lockAndUnlock(client);
            }
        });
        report("POSTGRES", () -> {
            try (LockClient client = LockClient.create(PostgresStore.url(args[0]))) {
                return lockAndUnlock(client);
            }
        });
        report("REDIS", () -> RedisStore.standalone("redis://127.0.0.1:6379").toString());
        report("REDLOCK", () -> RedisStore.redlock("redis://a", "redis://b", "redis://c").toString());
        report("ZOOKEEPER", () -> ZooKeeperStore.connect("127.0.0.1:2181").toString());
        System.out.println("DONE");
    }

    private static String lockAndUnlock(LockClient client) {
        DistributedLock lock = client.getLock("missing-library");
        lock.lock();
        lock.unlock();
        return "locked";
    }

    private static void report(String check, Callable<String> outcome) {
        String line;
        try {
            line = outcome.call();
        } catch (Throwable t) {
            line = t.getClass().getSimpleName() + ": " + t.getMessage();
        }
        System.out.println(check + " " + line);
    }
}
