package dev.dlock.internal;

import dev.dlock.LockHolder;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Who a client is in Redis: its random client id, from which every owner id is made
 * ({@code clientId:threadId:sequence}, never reused), and the holder description recorded with
 * each hold ({@code client\thost\tpid\tthread}), which {@link #parseHolder} reads back.
 */
final class ClientIdentity {

    private static final String HOST = hostName();
    private static final long PID = ProcessHandle.current().pid();

    private final String clientId = randomId();
    private final String holderPrefix;
    private final AtomicLong ownerSequence = new AtomicLong();

    ClientIdentity(String clientName) {
        this.holderPrefix = clean(clientName) + "\t" + clean(HOST) + "\t" + PID + "\t";
    }

    /** The random id that starts every owner id of this client. */
    String clientId() {
        return clientId;
    }

    /**
     * The owner id prefix of the current thread: client id and thread id. Each acquire attempt adds
     * a sequence number (see {@link Acquisition}), so owner ids are never reused.
     */
    String ownerPrefix() {
        return clientId + ":" + Thread.currentThread().getId();
    }

    long nextOwnerSequence() {
        return ownerSequence.incrementAndGet();
    }

    /** The holder recorded for a hold taken by the current thread. */
    String holderDescription() {
        return holderPrefix + clean(Thread.currentThread().getName());
    }

    /** Reads a recorded holder back; a holder written by something else is kept whole as the client name. */
    static LockHolder parseHolder(String recorded) {
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

    private static String clean(String text) {
        return text.replace('\t', ' ').replace('\n', ' ');
    }

    private static String randomId() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
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
