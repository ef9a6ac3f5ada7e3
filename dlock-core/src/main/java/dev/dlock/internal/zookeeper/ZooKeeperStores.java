package dev.dlock.internal.zookeeper;

import dev.dlock.LockBackendException;
import dev.dlock.NodeError;
import dev.dlock.internal.store.StoreContext;
import dev.dlock.internal.store.StoreFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * The ZooKeeper backend's entry: a {@link StoreFactory} for the client's builder. Opening connects,
 * checks the session timeout the ensemble grants against the lease, creates dlock's nodes under the
 * chroot when they are missing and fails loudly when the ensemble cannot be used (unreachable, a
 * missing chroot, credentials or ACLs refused).
 */
public final class ZooKeeperStores {

    private static final Pattern CONNECT_STRING =
            Pattern.compile("[^,/\\s]+:\\d{1,5}(,[^,/\\s]+:\\d{1,5})*(/[^\\s]*[^/\\s])?");

    /**
     * @param sessionTimeout  the session timeout to ask for (the ensemble may grant less or more within
     *                        its bounds); null: the client's default lease
     * @param authScheme      the scheme of {@code authCredentials} ({@code digest}), or null for none
     * @param authCredentials {@code user:password} for {@code digest}; with credentials dlock's nodes are
     *                        created with the ACL {@code creator all}
     */
    public record Options(Duration sessionTimeout, String authScheme, String authCredentials) {

        public static final Options DEFAULTS = new Options(null, null, null);

        public Options {
            if (sessionTimeout != null && (sessionTimeout.toMillis() < 1 || sessionTimeout.toMillis() > Integer.MAX_VALUE)) {
                throw new IllegalArgumentException("ZooKeeper session timeout must be between 1 ms and 24 days, got "
                        + sessionTimeout);
            }
            if ((authScheme == null) != (authCredentials == null) || (authScheme != null && authScheme.isBlank())) {
                throw new IllegalArgumentException("ZooKeeper credentials need a scheme and credentials, got scheme '"
                        + authScheme + "'");
            }
        }
    }

    private ZooKeeperStores() {
    }

    /**
     * Locks in the ensemble of a connect string, {@code host:port[,host:port...][/chroot]}.
     *
     * @throws IllegalArgumentException naming the connect string when it is not one
     */
    public static StoreFactory connect(String connectString, Options options) {
        String checked = checkConnectString(connectString);
        return context -> open(checked, options, context);
    }

    /**
     * @return the connect string, checked
     * @throws IllegalArgumentException the connect string is blank or not {@code host:port[,host:port...][/chroot]}
     */
    public static String checkConnectString(String connectString) {
        if (connectString == null || connectString.isBlank()) {
            throw new IllegalArgumentException("ZooKeeper connect string must not be blank");
        }
        if (!CONNECT_STRING.matcher(connectString).matches()) {
            throw new IllegalArgumentException("not a ZooKeeper connect string: '" + connectString
                    + "' (expected host:port[,host:port...][/chroot], such as zk1:2181,zk2:2181,zk3:2181/app-locks)");
        }
        try {
            Class.forName("org.apache.zookeeper.ZooKeeper");
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the ZooKeeper client is not on the class path: add the dependency "
                    + "org.apache.zookeeper:zookeeper", e);
        }
        return connectString;
    }

    /** The servers of a connect string, without its chroot. */
    static String withoutChroot(String connectString) {
        int slash = connectString.indexOf('/');
        return slash < 0 ? connectString : connectString.substring(0, slash);
    }

    /**
     * The least time the first session gets (as a Redis connection's set-up does): bounded by one
     * command's timeout (500 ms for a short lease), a worker on a loaded machine found "no server of
     * the ensemble answered" although the ensemble was up. Nothing is held before it answers.
     */
    private static final long CONNECT_FLOOR_MS = 3000;

    private static ZooKeeperStore open(String connectString, Options options, StoreContext context) {
        long leaseMs = context.settings().defaultLease().toMillis();
        long commandTimeoutMs = context.settings().commandTimeout().toMillis();
        int sessionMs = (int) (options.sessionTimeout() == null ? leaseMs : options.sessionTimeout().toMillis());
        ZkSession session = ZkSession.open(connectString, sessionMs, options.authScheme(),
                options.authCredentials() == null ? null : options.authCredentials().getBytes(StandardCharsets.UTF_8),
                Math.max(commandTimeoutMs, CONNECT_FLOOR_MS), context.ticker()::nanoTime);
        try {
            int granted = session.negotiatedTimeoutMs();
            if (granted < leaseMs / 2) {
                throw new IllegalArgumentException("ZooKeeper at " + session.address() + " granted a session timeout of "
                        + granted + " ms, less than half the lease of " + leaseMs + " ms: a hold is trusted for the "
                        + "session timeout at most, and the watchdog renews every third of the lease; set a lease of at most "
                        + 2 * granted + " ms or raise the servers' maxSessionTimeout");
            }
            createNodes(session, connectString, commandTimeoutMs);
            AtomicInteger threads = new AtomicInteger();
            ExecutorService replies = Executors.newCachedThreadPool(task -> {
                Thread thread = new Thread(task, "dlock-zookeeper-" + threads.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            });
            ZkWakeUps wakeUps = new ZkWakeUps(session, context.settings().keyPrefix());
            session.addListener(wakeUps);
            ZooKeeperStore store = new ZooKeeperStore(session, wakeUps, context.ticker()::nanoTime,
                    context.settings().keyPrefix(), commandTimeoutMs, replies);
            store.freshEnsembleNowMs().get(commandTimeoutMs, TimeUnit.MILLISECONDS);
            return store;
        } catch (RuntimeException e) {
            session.close();
            throw e;
        } catch (Exception e) {
            session.close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new LockBackendException("could not use ZooKeeper at " + session.address() + ": " + e, e);
        }
    }

    /** dlock's nodes under the chroot, each created when missing. */
    private static void createNodes(ZkSession session, String connectString, long timeoutMs) throws Exception {
        for (String path : List.of(ZkNodes.ROOT, ZkNodes.LOCKS, ZkNodes.CLIENTS, ZkNodes.CLOCK)) {
            try {
                session.handle().create(path, new byte[0], session.acl(), CreateMode.PERSISTENT);
            } catch (KeeperException.NodeExistsException exists) {
                // made by another client
            } catch (KeeperException.NoNodeException missing) {
                String chroot = connectString.substring(withoutChroot(connectString).length());
                throw failure(session, "the chroot '" + chroot + "' does not exist; create it (zkCli.sh create " + chroot
                        + ") or leave it out of the connect string", missing);
            } catch (KeeperException.NoAuthException refused) {
                throw failure(session, "the ensemble refused to create " + path + " under the chroot (NOAUTH): "
                        + "check the credentials and the ACL of its parent", refused);
            } catch (KeeperException e) {
                throw failure(session, "could not create " + path + ": " + e.getMessage(), e);
            }
        }
    }

    private static LockBackendException failure(ZkSession session, String why, Exception cause) {
        return new LockBackendException("could not use ZooKeeper at " + session.address() + ": " + why, cause, null,
                List.of(new NodeError(session.address(), NodeError.Cause.ERROR_REPLY, why)));
    }
}
