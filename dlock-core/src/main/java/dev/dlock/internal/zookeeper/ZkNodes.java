package dev.dlock.internal.zookeeper;

import dev.dlock.internal.store.LockKind;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * How locks are laid out in ZooKeeper (see docs/design.md, "ZooKeeper"): under {@code /dlock/locks}
 * one container node per lock, named by its key ({@code <prefix>{name}}, URL-encoded), and under it
 * one ephemeral sequential node per hold or queued waiter,
 * {@code <mode>~<session>~<id>~<sequence>}: the mode ({@code x} exclusive, {@code w} write,
 * {@code r} read, {@code p<permits>} a semaphore's permit), the creating session (hex), the owner
 * or waiter id (URL-encoded) and ZooKeeper's sequence number, which orders them. A node's data is
 * {@code owner \n leaseMs \n holdCount \n passes \n holder}; a queued waiter's has no owner and a count of 0
 * until it is granted.
 */
final class ZkNodes {

    static final String ROOT = "/dlock";
    static final String LOCKS = ROOT + "/locks";
    static final String CLIENTS = ROOT + "/clients";
    /** Written to read the ensemble's clock (its stat's mtime). */
    static final String CLOCK = ROOT + "/clock";

    private ZkNodes() {
    }

    static String lockPath(String key) {
        return LOCKS + "/" + encode(key);
    }

    static String keyOf(String lockNode) {
        return URLDecoder.decode(lockNode, StandardCharsets.UTF_8);
    }

    static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    /** The mode part of a kind's node name. */
    static String mode(LockKind kind, int permits) {
        return switch (kind) {
            case REENTRANT, FAIR -> "x";
            case WRITE -> "w";
            case READ -> "r";
            case PERMIT -> "p" + permits;
        };
    }

    /** The path to create (ZooKeeper appends the sequence number). */
    static String childPrefix(String lockPath, String mode, long sessionId, String id) {
        return lockPath + "/" + mode + "~" + Long.toHexString(sessionId) + "~" + encode(id) + "~";
    }

    /** One child of a lock node, as its name says. */
    record Entry(String name, char mode, int permits, long session, String id, long sequence) {

        boolean exclusive() {
            return mode == 'x' || mode == 'w';
        }

        boolean shared() {
            return !exclusive();
        }
    }

    /** The children that are dlock's, in sequence order. */
    static List<Entry> entries(List<String> children) {
        List<Entry> entries = new ArrayList<>(children.size());
        for (String child : children) {
            Entry entry = parse(child);
            if (entry != null) {
                entries.add(entry);
            }
        }
        entries.sort(Comparator.comparingLong(Entry::sequence));
        return entries;
    }

    static Entry parse(String name) {
        String[] parts = name.split("~", -1);
        if (parts.length != 4 || parts[0].isEmpty()) {
            return null;
        }
        try {
            char mode = parts[0].charAt(0);
            int permits = mode == 'p' ? Integer.parseInt(parts[0].substring(1)) : 0;
            return new Entry(name, mode, permits, Long.parseUnsignedLong(parts[1], 16),
                    URLDecoder.decode(parts[2], StandardCharsets.UTF_8), Long.parseLong(parts[3]));
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** What the node before {@code me} in the queue says of it. */
    sealed interface Verdict permits Granted, Blocked, PermitsDiffer {
    }

    record Granted() implements Verdict {
    }

    /** Blocked by {@code by}, the first node in the way. */
    record Blocked(Entry by) implements Verdict {
    }

    record PermitsDiffer(int stored) implements Verdict {
    }

    /**
     * Whether {@code me} holds the lock given the nodes before it: an exclusive node only at the
     * head; a reader when no exclusive node comes before it (a writer of its own thread excepted: a
     * downgrade); a permit when no exclusive node comes before it and fewer permits than the count
     * do. A waiting writer thus holds back later readers, and every kind is served in order.
     *
     * @param downgradeSession the session of the thread's own write hold ({@code downgradeNode}), or -1
     */
    static Verdict verdict(List<Entry> entries, Entry me, String downgradeNode) {
        int permitsBefore = 0;
        for (Entry entry : entries) {
            if (entry.sequence() >= me.sequence()) {
                break;
            }
            if (me.exclusive()) {
                return new Blocked(entry);
            }
            if (entry.exclusive()) {
                if (entry.name().equals(downgradeNode)) {
                    continue;
                }
                return new Blocked(entry);
            }
            if (me.mode() == 'p' && entry.mode() == 'p') {
                if (entry.permits() != me.permits()) {
                    return new PermitsDiffer(entry.permits());
                }
                if (++permitsBefore >= me.permits()) {
                    return new Blocked(entry);
                }
            }
        }
        return new Granted();
    }

    /** The verdict for a node that would be created now, behind every existing one. */
    static Verdict verdictIfAdded(List<Entry> entries, char mode, int permits, String downgradeNode) {
        return verdict(entries, new Entry("", mode, permits, 0, "", Long.MAX_VALUE), downgradeNode);
    }

    /** How many low bits of a token count the passes of one node between threads of its client. */
    static final int PASS_BITS = 8;
    /** The most passes one node may make (the client's handoff run is bounded well below). */
    static final int MAX_PASS = (1 << PASS_BITS) - 1;

    /**
     * The fencing token of a hold: its node's {@code czxid} (which grows over the whole ensemble, in
     * the node's queue order) with the count of the node's passes between threads of its client in
     * the low bits. A later node's {@code czxid} is greater, so its tokens exceed every pass of an
     * earlier node; the high bits hold a zxid's epoch up to 2^23 elections.
     */
    static long token(long czxid, int pass) {
        return (czxid << PASS_BITS) | pass;
    }

    /** A node's data: {@code pass} counts the node's passes between threads of its client (see {@link #token}). */
    record NodeData(String owner, long leaseMs, int count, int pass, String holder) {

        static final NodeData NONE = new NodeData("", 0, 0, 0, "");

        NodeData(String owner, long leaseMs, int count, String holder) {
            this(owner, leaseMs, count, 0, holder);
        }

        byte[] bytes() {
            return (owner + "\n" + leaseMs + "\n" + count + "\n" + pass + "\n" + holder).getBytes(StandardCharsets.UTF_8);
        }

        static NodeData of(byte[] bytes) {
            if (bytes == null) {
                return NONE;
            }
            String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n", 5);
            try {
                return new NodeData(lines[0], Long.parseLong(lines[1]), Integer.parseInt(lines[2]),
                        lines.length > 3 ? Integer.parseInt(lines[3]) : 0, lines.length > 4 ? lines[4] : "");
            } catch (RuntimeException e) {
                return NONE;
            }
        }
    }
}
