package dev.dlock.internal.hold;

import dev.dlock.LockHolder;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Who a client is in the store: its random client id, from which every owner id is made
 * ({@code clientId:threadId:sequence}, the numbers in base 36, never reused), and the holder
 * description of its threads ({@code client\thost\tpid\tthread}), which {@link #parseHolder}
 * reads back. Owner ids are kept short because a lock's hash stores one per hold: 12 characters
 * of client id (72 random bits, base64url) rather than 32 hex digits. A hash of two fields whose
 * owner id is at most 23 characters long takes Redis's 48-byte allocation, a longer one the
 * 64-byte one: 12 leave 9 for thread id and sequence (3 and 5 in base 36: 46,655 threads,
 * 60 million acquisitions).
 */
public final class ClientIdentity {

    private static final String HOST = hostName();
    private static final long PID = ProcessHandle.current().pid();

    private final String clientId = randomId();
    private final String clientName;
    private final String holderPrefix;
    private final AtomicLong ownerSequence = new AtomicLong();

    public ClientIdentity(String clientName) {
        this.clientName = clean(clientName);
        this.holderPrefix = clean(clientName) + "\t" + clean(HOST) + "\t" + PID + "\t";
    }

    /** The random id that starts every owner id of this client. */
    public String clientId() {
        return clientId;
    }

    /**
     * The owner id prefix of the current thread: client id and thread id. Each acquire attempt adds
     * a sequence number (see {@link dev.dlock.internal.acquire.Acquisition}), so owner ids are never
     * reused.
     */
    public String ownerPrefix() {
        return clientId + ":" + threadId(Thread.currentThread());
    }

    /** A number never used before by this client, in base 36, for an owner or waiter id. */
    public String nextOwnerSequence() {
        return Long.toString(ownerSequence.incrementAndGet(), Character.MAX_RADIX);
    }

    /** How a thread appears in owner ids and in the client record's thread fields. */
    public static String threadId(Thread thread) {
        return Long.toString(thread.getId(), Character.MAX_RADIX);
    }

    public String clientName() {
        return clientName;
    }

    public static String host() {
        return clean(HOST);
    }

    public static long pid() {
        return PID;
    }

    /**
     * The client id and thread id an owner or waiter id starts with, or empty for an id that is not
     * of that form (written by something else).
     */
    public static Optional<String[]> clientAndThread(String owner) {
        int first = owner.indexOf(':');
        int second = first < 0 ? -1 : owner.indexOf(':', first + 1);
        if (first <= 0 || second <= first + 1) {
            return Optional.empty();
        }
        return Optional.of(new String[] {owner.substring(0, first), owner.substring(first + 1, second)});
    }

    /** The holder recorded for a hold taken by the current thread. */
    public String holderDescription() {
        return holderPrefix + clean(Thread.currentThread().getName());
    }

    /** Reads a recorded holder back; a holder written by something else is kept whole as the client name. */
    public static LockHolder parseHolder(String recorded) {
        String[] parts = recorded.split("\t", 4);
        if (parts.length < 4) {
            return new LockHolder(recorded, "", -1, "");
        }
        long pid;
        try {
            pid = Long.parseLong(parts[2]);
        } catch (NumberFormatException e) {
            pid = -1;
        }
        return new LockHolder(parts[0], parts[1], pid, parts[3]);
    }

    public static String clean(String text) {
        return text.replace('\t', ' ').replace('\n', ' ');
    }

    private static String randomId() {
        byte[] bytes = new byte[9];
        new SecureRandom().nextBytes(bytes);
        // URL-safe: no ':' (the owner id's separator), no '{' or '}' (the Cluster hash tag)
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static String hostName() {
        String fromEnv = System.getenv("HOSTNAME");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv;
        }
        try {
            Path etcHostname = Path.of("/etc/hostname");
            if (Files.isReadable(etcHostname)) {
                String name = Files.readString(etcHostname).trim();
                if (!name.isEmpty()) {
                    return name;
                }
            }
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown-host";
        }
    }
}
