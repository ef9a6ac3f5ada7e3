package dev.dlock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/** What dlock keeps in a ZooKeeper ensemble, read and cleared with a client of its own, for tests. */
public final class ZooKeeperLocks {

    private static final String LOCKS = "/dlock/locks";

    private ZooKeeperLocks() {
    }

    /** Runs {@code work} on a fresh session of the ensemble. */
    public static <T> T withSession(String connectString, Work<T> work) {
        CountDownLatch connected = new CountDownLatch(1);
        try {
            ZooKeeper zk = new ZooKeeper(connectString, 10_000, event -> {
                if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            });
            try {
                if (!connected.await(20, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("no session with ZooKeeper at " + connectString);
                }
                zk.sync("/", (rc, path, ctx) -> { }, null);
                return work.run(zk);
            } finally {
                zk.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (Exception e) {
            throw new IllegalStateException("ZooKeeper at " + connectString + ": " + e, e);
        }
    }

    public interface Work<T> {
        T run(ZooKeeper zk) throws Exception;
    }

    /** The path of every hold and waiter node under every lock. */
    public static List<String> lockNodes(String connectString) {
        return withSession(connectString, ZooKeeperLocks::lockNodes);
    }

    private static List<String> lockNodes(ZooKeeper zk) throws Exception {
        List<String> nodes = new ArrayList<>();
        for (String lock : children(zk, LOCKS)) {
            for (String child : children(zk, LOCKS + "/" + lock)) {
                nodes.add(LOCKS + "/" + lock + "/" + child);
            }
        }
        return nodes;
    }

    /** Every hold and waiter node under every lock with its data as text, for a test's failure message. */
    public static List<String> lockNodesWithData(String connectString) {
        return withSession(connectString, zk -> {
            List<String> nodes = new ArrayList<>();
            for (String path : lockNodes(zk)) {
                byte[] data = zk.getData(path, false, null);
                nodes.add(path.substring(path.lastIndexOf('/') + 1) + " = "
                        + (data == null ? "-" : new String(data, java.nio.charset.StandardCharsets.UTF_8)));
            }
            return nodes;
        });
    }

    /** Deletes every lock's nodes (holds, waiters and the lock nodes themselves). */
    public static void deleteLocks(String connectString) {
        withSession(connectString, zk -> {
            for (String lock : children(zk, LOCKS)) {
                for (String child : children(zk, LOCKS + "/" + lock)) {
                    delete(zk, LOCKS + "/" + lock + "/" + child);
                }
                delete(zk, LOCKS + "/" + lock);
            }
            return null;
        });
    }

    private static List<String> children(ZooKeeper zk, String path) throws Exception {
        try {
            return zk.getChildren(path, false);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    private static void delete(ZooKeeper zk, String path) throws Exception {
        try {
            zk.delete(path, -1);
        } catch (KeeperException.NoNodeException | KeeperException.NotEmptyException e) {
            // gone already, or a late node: the next test's names differ
        }
    }
}
