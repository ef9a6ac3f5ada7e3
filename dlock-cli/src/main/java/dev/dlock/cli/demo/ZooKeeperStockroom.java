package dev.dlock.cli.demo;

import dev.dlock.LockBackendException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZKUtil;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * The stock and orders as plain ZooKeeper nodes under the connect string's chroot:
 * {@code /dlock-demo/<sale>} holds the stock (a number, its data) and one child per order, on a
 * session of the app server's own. Reads and writes each on their own, nothing atomic (no
 * version checks): the race the lock is there to prevent.
 */
final class ZooKeeperStockroom implements Stockroom {

    static final String ROOT = "/dlock-demo";

    private final ZooKeeper zk;

    ZooKeeperStockroom(String connectString) {
        this.zk = connect(connectString);
    }

    static ZooKeeper connect(String connectString) {
        CountDownLatch connected = new CountDownLatch(1);
        try {
            ZooKeeper zk = new ZooKeeper(connectString, 30_000, event -> {
                if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            });
            if (!connected.await(10, TimeUnit.SECONDS)) {
                zk.close(1000);
                throw new LockBackendException("no server of the ZooKeeper ensemble at " + connectString
                        + " gave a session within 10 s");
            }
            return zk;
        } catch (IOException e) {
            throw new LockBackendException("cannot connect to ZooKeeper at " + connectString + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockBackendException("interrupted while connecting to ZooKeeper at " + connectString, e);
        }
    }

    static String salePath(String sale) {
        return ROOT + "/" + sale.replace('/', '_');
    }

    @Override
    public void stockUp(String sale, int units) {
        call(() -> {
            if (zk.exists(ROOT, false) == null) {
                try {
                    zk.create(ROOT, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                } catch (KeeperException.NodeExistsException raced) {
                    // another app server made it
                }
            }
            String path = salePath(sale);
            if (zk.exists(path, false) != null) {
                ZKUtil.deleteRecursive(zk, path);
            }
            zk.create(path, bytes(units), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            return null;
        });
    }

    @Override
    public int stock(String sale) {
        return call(() -> {
            try {
                return Integer.parseInt(new String(zk.getData(salePath(sale), false, null), StandardCharsets.UTF_8));
            } catch (KeeperException.NoNodeException e) {
                return 0;
            }
        });
    }

    @Override
    public void writeStock(String sale, int units) {
        call(() -> zk.setData(salePath(sale), bytes(units), -1));
    }

    @Override
    public void recordOrder(String sale, String buyer) {
        call(() -> zk.create(salePath(sale) + "/order-", buyer.getBytes(StandardCharsets.UTF_8),
                ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL));
    }

    @Override
    public long orders(String sale) {
        return call(() -> {
            try {
                return (long) zk.exists(salePath(sale), false).getNumChildren();
            } catch (NullPointerException gone) {
                return 0L;
            }
        });
    }

    @Override
    public String keep(String sale) {
        return "kept " + salePath(sale) + " (the stock) and its children (the orders); the next run on the sale deletes them";
    }

    @Override
    public void delete(String sale) {
        call(() -> {
            if (zk.exists(salePath(sale), false) != null) {
                ZKUtil.deleteRecursive(zk, salePath(sale));
            }
            return null;
        });
    }

    @Override
    public void close() {
        try {
            zk.close(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static byte[] bytes(int units) {
        return Integer.toString(units).getBytes(StandardCharsets.UTF_8);
    }

    private interface Call<T> {
        T run() throws KeeperException, InterruptedException;
    }

    private static <T> T call(Call<T> call) {
        try {
            return call.run();
        } catch (KeeperException e) {
            throw new LockBackendException("ZooKeeper refused the demo's stock or orders: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockBackendException("interrupted", e);
        }
    }
}
