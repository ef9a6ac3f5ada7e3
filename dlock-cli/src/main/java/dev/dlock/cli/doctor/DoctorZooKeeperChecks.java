package dev.dlock.cli.doctor;

import dev.dlock.LockClientBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * {@code dlock doctor --zookeeper CONNECT}: the ensemble as the locks need it. Each server of the
 * connect string asked {@code srvr} (version, leader or follower: is there a quorum?); a session
 * opened as dlock opens one (the session timeout the ensemble grants against the one asked); the
 * chroot; the ensemble's clock (a write's {@code mtime}) against this machine's; the ACL of dlock's
 * nodes, by creating and deleting a node where the locks' nodes go; then every lock kind taken and
 * released ({@link DoctorLockChecks}). Only the probe's own nodes are written.
 */
final class DoctorZooKeeperChecks {

    /** The session timeout dlock asks for by default: the default lease. */
    private static final int ASKED_SESSION_MS = 30_000;
    private static final long CONNECT_TIMEOUT_MS = 10_000;

    private DoctorZooKeeperChecks() {
    }

    static List<DoctorCheck> all(String connectString, Supplier<LockClientBuilder> builders) {
        List<DoctorCheck> checks = new ArrayList<>();
        int slash = connectString.indexOf('/');
        String hosts = slash < 0 ? connectString : connectString.substring(0, slash);
        String chroot = slash < 0 ? "" : connectString.substring(slash);
        checks.addAll(servers(hosts));
        ZooKeeper zk;
        try {
            zk = connect(hosts);
        } catch (IOException | RuntimeException e) {
            checks.add(DoctorCheck.fail("reachable", "ensemble", "no server of " + hosts + " gave a session within "
                    + CONNECT_TIMEOUT_MS + " ms (" + e.getMessage() + "): no lock can be taken"));
            return checks;
        }
        try {
            int granted = zk.getSessionTimeout();
            checks.add(granted < ASKED_SESSION_MS / 2
                    ? DoctorCheck.fail("session", "ensemble", "the ensemble grants a session timeout of " + granted
                    + " ms for the " + ASKED_SESSION_MS + " ms dlock asks: below half the default lease, the client refuses"
                    + " to start (raise maxSessionTimeout, or set ZooKeeperStore.sessionTimeout and a shorter lease)")
                    : DoctorCheck.ok("session", "ensemble", "session timeout " + granted + " ms granted for the "
                    + ASKED_SESSION_MS + " ms asked: a crashed holder's locks are free after it"));
            if (!chroot.isEmpty() && zk.exists(chroot, false) == null) {
                checks.add(DoctorCheck.fail("chroot", "ensemble", "the chroot " + chroot
                        + " does not exist: create it (dlock creates nothing above its own nodes)"));
                return checks;
            }
            checks.add(clock(zk, chroot));
            DoctorCheck acl = acl(zk, chroot);
            checks.add(acl);
            if (acl.status() == DoctorCheck.Status.FAIL) {
                return checks;
            }
        } catch (KeeperException e) {
            checks.add(DoctorCheck.fail("reachable", "ensemble", "the ensemble failed a read: " + e.getMessage()));
            return checks;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return checks;
        } finally {
            close(zk);
        }
        String probePrefix = "dlock-doctor:" + UUID.randomUUID().toString().substring(0, 8) + ":";
        checks.addAll(DoctorLockChecks.all(() -> builders.get().keyPrefix(probePrefix), "ensemble"));
        return checks;
    }

    /** Each server's {@code srvr}: version and mode; whether a quorum of them serves. */
    private static List<DoctorCheck> servers(String hosts) {
        List<DoctorCheck> checks = new ArrayList<>();
        String[] addresses = hosts.split(",");
        int serving = 0;
        for (String address : addresses) {
            String server = address.strip();
            try {
                String reply = fourLetter(server, "srvr");
                if (reply.contains("is not executed because it is not in the whitelist")) {
                    checks.add(DoctorCheck.warn("server", server, "srvr is not in 4lw.commands.whitelist: its version "
                            + "and mode cannot be read"));
                    serving++;
                    continue;
                }
                String version = field(reply, "Zookeeper version: ");
                String mode = field(reply, "Mode: ");
                boolean serves = mode.equals("leader") || mode.equals("follower") || mode.equals("standalone");
                if (serves) {
                    serving++;
                }
                checks.add(serves ? DoctorCheck.ok("server", server, "ZooKeeper " + version.split("[-,]")[0] + ", " + mode)
                        : DoctorCheck.warn("server", server, "ZooKeeper " + version.split("[-,]")[0] + ", " + (mode.isEmpty()
                        ? "not serving (no quorum seen from it)" : mode)));
            } catch (IOException e) {
                checks.add(DoctorCheck.warn("server", server, "does not answer (" + e.getMessage() + ")"));
            }
        }
        int needed = addresses.length / 2 + 1;
        checks.add(serving >= needed
                ? DoctorCheck.ok("quorum", "ensemble", serving + " of " + addresses.length + " servers serve"
                + (addresses.length < 3 ? ": one server is no ensemble, its loss stops every lock" : ""))
                : DoctorCheck.fail("quorum", "ensemble", serving + " of " + addresses.length + " servers serve, "
                + needed + " needed (if the connect string names them all): no lock can be taken"));
        return checks;
    }

    /** The ensemble's clock (a write's mtime, the leader's clock) against this machine's. */
    private static DoctorCheck clock(ZooKeeper zk, String chroot) throws KeeperException, InterruptedException {
        String path = chroot + "/dlock-doctor-clock-" + UUID.randomUUID();
        long before = System.currentTimeMillis();
        try {
            zk.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        } catch (KeeperException.NoAuthException e) {
            return DoctorCheck.warn("clock", "ensemble", "cannot write " + (chroot.isEmpty() ? "/" : chroot)
                    + " to read the ensemble's clock (no permission)");
        }
        long after = System.currentTimeMillis();
        Stat stat = zk.exists(path, false);
        zk.delete(path, -1);
        long skew = stat.getMtime() < before ? stat.getMtime() - before : stat.getMtime() > after ? stat.getMtime() - after : 0;
        String finding = "the leader's clock is " + (skew == 0 ? "within the round trip of" : Math.abs(skew) + " ms "
                + (skew > 0 ? "ahead of" : "behind")) + " this machine's";
        return Math.abs(skew) > 1000
                ? DoctorCheck.warn("clock", "ensemble", finding + ": explicit leases are judged on the ensemble's "
                + "clock, fine; but keep the servers' clocks in step (NTP), a new leader's clock ends leases early if ahead")
                : DoctorCheck.ok("clock", "ensemble", finding);
    }

    /** Creates and deletes a node where dlock's lock nodes go: the ACL on the way must let dlock write. */
    private static DoctorCheck acl(ZooKeeper zk, String chroot) throws KeeperException, InterruptedException {
        String where = chroot + "/dlock/locks";
        String current = where;
        String refusing = where;
        try {
            for (String path : List.of(chroot + "/dlock", where)) {
                current = path;
                refusing = path;
                if (zk.exists(path, false) == null) {
                    refusing = parent(path);
                    try {
                        zk.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                    } catch (KeeperException.NodeExistsException raced) {
                        // created meanwhile: fine
                    }
                }
            }
            current = where + "/dlock-doctor-";
            refusing = where;
            String probe = zk.create(current, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.EPHEMERAL_SEQUENTIAL);
            zk.delete(probe, -1);
        } catch (KeeperException.NoAuthException e) {
            List<ACL> acl = readAcl(zk, refusing);
            return DoctorCheck.fail("acl", "ensemble", "refused (NOAUTH) on " + current + ": the ACL of " + refusing
                    + (acl.isEmpty() ? "" : " (" + acl.toString().replace("\n", " ").strip() + ")")
                    + " does not let this client read and create the lock nodes; give dlock ZooKeeperStore.auth "
                    + "credentials that the ACL grants read, create and delete");
        }
        List<ACL> acl = readAcl(zk, where);
        return DoctorCheck.ok("acl", "ensemble", "nodes created and deleted under " + where
                + (acl.isEmpty() ? "" : " (ACL " + acl + ")"));
    }

    private static List<ACL> readAcl(ZooKeeper zk, String path) {
        try {
            return zk.getACL(path.isEmpty() ? "/" : path, new Stat()).stream().toList();
        } catch (KeeperException | RuntimeException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    private static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash <= 0 ? "/" : path.substring(0, slash);
    }

    private static ZooKeeper connect(String hosts) throws IOException {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(hosts, ASKED_SESSION_MS, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        try {
            if (!connected.await(CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                close(zk);
                throw new IOException("no session");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close(zk);
            throw new IOException("interrupted");
        }
        return zk;
    }

    private static void close(ZooKeeper zk) {
        try {
            zk.close(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A four-letter word's reply; an IOException when the server does not answer within 2 s. */
    static String fourLetter(String hostPort, String word) throws IOException {
        int colon = hostPort.lastIndexOf(':');
        String host = colon < 0 ? hostPort : hostPort.substring(0, colon);
        int port = colon < 0 ? 2181 : Integer.parseInt(hostPort.substring(colon + 1));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 2000);
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write(word.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (NumberFormatException e) {
            throw new IOException("not host:port: " + hostPort);
        }
    }

    private static String field(String reply, String start) {
        for (String line : reply.split("\n")) {
            if (line.startsWith(start)) {
                return line.substring(start.length()).strip();
            }
        }
        return "";
    }
}
