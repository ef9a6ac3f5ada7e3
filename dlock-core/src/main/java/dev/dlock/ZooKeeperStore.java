package dev.dlock;

import dev.dlock.internal.settings.ClientLibraries;
import dev.dlock.internal.store.StoreFactory;
import dev.dlock.internal.zookeeper.ZooKeeperStores;
import java.time.Duration;

/**
 * The locks in a ZooKeeper ensemble, through the ZooKeeper client ({@code org.apache.zookeeper:zookeeper} 3.6
 * or newer, servers too, which the application adds: an optional dependency of dlock-core): every lock kind,
 * lease, watchdog renewal, fencing token (the {@code czxid} of the holder's node, shifted left 8 bits, plus its passes between the client's threads), fair queue and loss notice
 * works as on Redis. The client's ZooKeeper session is the liveness lease: a hold is trusted for its lease or
 * the session timeout, whichever is shorter, so a holder cut off from the ensemble is told before its session
 * can expire; an explicit lease is judged on the ensemble's clock. Immutable: the options below return a new
 * value. See docs/deployments.md.
 *
 * <pre>{@code
 * LockClient.builder().store(ZooKeeperStore.connect("zk1:2181,zk2:2181,zk3:2181/app-locks")
 *         .sessionTimeout(Duration.ofSeconds(30)))
 * }</pre>
 *
 * <p>The client's ZooKeeper jars are read from the class path; an application on the module path runs with
 * {@code --add-reads dev.dlock=ALL-UNNAMED}.
 */
public final class ZooKeeperStore implements Store {

    private final String connectString;
    private final ZooKeeperStores.Options options;

    private ZooKeeperStore(String connectString, ZooKeeperStores.Options options) {
        this.connectString = connectString;
        this.options = options;
    }

    /**
     * The ensemble of a connect string; its chroot (the namespace of dlock's nodes) must exist.
     *
     * @param connectString {@code host:port[,host:port...][/chroot]}, such as {@code zk1:2181,zk2:2181,zk3:2181/app-locks}
     * @return the store
     * @throws IllegalArgumentException the connect string is blank or not of that form; the message quotes it
     * @throws IllegalStateException the ZooKeeper client is not on the class path
     */
    public static ZooKeeperStore connect(String connectString) {
        ClientLibraries.require("ZooKeeperStore", "org.apache.zookeeper.ZooKeeper", "org.apache.zookeeper:zookeeper");
        return new ZooKeeperStore(ZooKeeperStores.checkConnectString(connectString), ZooKeeperStores.Options.DEFAULTS);
    }

    /**
     * The session timeout to ask the ensemble for (it grants one within its {@code minSessionTimeout} and
     * {@code maxSessionTimeout}). A crashed holder's locks are free once the ensemble expires its session.
     * Default: the default lease. {@link LockClientBuilder#build()} fails when the granted timeout is less than
     * half the default lease.
     *
     * @param timeout the session timeout, 1 ms to 24 days
     * @return a copy of this store with that session timeout
     * @throws IllegalArgumentException the timeout is null or out of range
     */
    public ZooKeeperStore sessionTimeout(Duration timeout) {
        if (timeout == null) {
            throw new IllegalArgumentException("ZooKeeperStore.sessionTimeout must not be null");
        }
        return new ZooKeeperStore(connectString, new ZooKeeperStores.Options(timeout, options.authScheme(),
                options.authCredentials()));
    }

    /**
     * Credentials for the ensemble's ACLs, such as {@code ("digest", "user:password")}; dlock's nodes are then
     * created with the ACL {@code creator all}, so clients that share locks must use the same credentials.
     * Default: none (open ACLs).
     *
     * @param scheme      the authentication scheme
     * @param credentials the credentials in that scheme's form
     * @return a copy of this store with these credentials
     * @throws IllegalArgumentException the scheme or the credentials are null or blank
     */
    public ZooKeeperStore auth(String scheme, String credentials) {
        if (scheme == null || scheme.isBlank() || credentials == null || credentials.isBlank()) {
            throw new IllegalArgumentException("ZooKeeperStore.auth needs a scheme and credentials, got scheme '"
                    + scheme + "'");
        }
        return new ZooKeeperStore(connectString, new ZooKeeperStores.Options(options.sessionTimeout(), scheme,
                credentials));
    }

    /**
     * The connect string this store was given.
     *
     * @return {@code host:port[,host:port...][/chroot]}
     */
    public String connectString() {
        return connectString;
    }

    StoreFactory factory() {
        return ZooKeeperStores.connect(connectString, options);
    }

    @Override
    public String toString() {
        return "ZooKeeperStore(" + connectString + ")";
    }
}
