package dev.dlock.cli.store;

import dev.dlock.Store;
import dev.dlock.ZooKeeperStore;
import dev.dlock.cli.common.UsageException;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * ZooKeeper: {@code --zookeeper}, else {@code $DLOCK_ZOOKEEPER} when no other store's variable is
 * set. Its option excludes every other store's with a message of its own.
 */
public final class ZooKeeperOptions implements StoreOptions {

    public static final String CONNECT_ENV = "DLOCK_ZOOKEEPER";

    @Option(names = "--zookeeper", paramLabel = "CONNECT", scope = ScopeType.INHERIT,
            description = {"ZooKeeper instead of Redis:",
                    "host:port[,host:port...][/chroot].",
                    "Default: $DLOCK_ZOOKEEPER. Excludes --redis,",
                    "--redlock, --cluster and --postgres."})
    private String zookeeper;

    @Override
    public String storeName() {
        return "ZooKeeper";
    }

    @Override
    public List<String> optionNames() {
        return List.of("--zookeeper");
    }

    @Override
    public List<String> given() {
        return zookeeper != null ? List.of("--zookeeper") : List.of();
    }

    @Override
    public List<String> forms() {
        return List.of();
    }

    @Override
    public String excludes(List<String> others) {
        return "--zookeeper excludes " + Stores.and(others) + ": give one of them";
    }

    @Override
    public String variable() {
        return CONNECT_ENV;
    }

    @Override
    public String variableOption() {
        return "--zookeeper CONNECT";
    }

    /** $DLOCK_ZOOKEEPER came after $REDIS_URL and $DLOCK_POSTGRES_URL: where one of them is set, it decides. */
    @Override
    public boolean variableYields() {
        return true;
    }

    @Override
    public ClientOptions fromOptions() {
        return new ClientOptions(this, "--zookeeper", List.of(checked(zookeeper, "--zookeeper")), "--zookeeper");
    }

    @Override
    public ClientOptions fromVariable(String value) {
        return new ClientOptions(this, "--zookeeper", List.of(checked(value.strip(), CONNECT_ENV)), CONNECT_ENV);
    }

    @Override
    public Store store(ClientOptions picked, boolean waitsOrWrites) {
        try {
            return ZooKeeperStore.connect(picked.urls().get(0));
        } catch (IllegalArgumentException e) {
            throw new UsageException("--zookeeper: " + e.getMessage(), e);
        }
    }

    /** The connect string if the library takes it; else a usage error naming where it came from. */
    private static String checked(String connectString, String from) {
        try {
            ZooKeeperStore.connect(connectString);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new UsageException(from + ": " + e.getMessage(), e);
        }
        return connectString;
    }
}
