package dev.dlock.cli.demo;

import dev.dlock.LockClientBuilder;
import dev.dlock.cli.DlockCommand;

/**
 * The demo on ZooKeeper ({@code --zookeeper CONNECT} or {@code DLOCK_ZOOKEEPER}): the locks as
 * dlock's nodes, the stock and orders as nodes of the demo's own ({@link ZooKeeperStockroom}). The
 * demo starts no ensemble of its own.
 */
final class ZooKeeperForDemo implements DemoStore {

    private final String connectString;
    private final String origin;

    private ZooKeeperForDemo(String connectString, String origin) {
        this.connectString = connectString;
        this.origin = origin;
    }

    /** Opens one session first, so that an ensemble nobody answers for fails before the sale. */
    static ZooKeeperForDemo connect(String connectString, String origin) {
        try (ZooKeeperStockroom probe = new ZooKeeperStockroom(connectString)) {
            probe.stock("probe");
        }
        return new ZooKeeperForDemo(connectString, origin);
    }

    @Override
    public String announcement() {
        return "zookeeper: using " + origin + " " + connectString + " (stock and orders under "
                + ZooKeeperStockroom.ROOT + ")";
    }

    @Override
    public LockClientBuilder lockClient(DlockCommand dlock) {
        return dlock.clientBuilder();
    }

    @Override
    public Stockroom openStockroom() {
        return new ZooKeeperStockroom(connectString);
    }

    @Override
    public RuntimeException connectFailure(RuntimeException failure) {
        return failure;
    }

    @Override
    public void close() {
        // nothing of its own: each stockroom closes its session
    }
}
