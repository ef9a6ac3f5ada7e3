package dev.dlock.testing;

import java.util.Locale;

/**
 * Which server the harness runs: Redis ({@code redis-server}, {@code redis-cli}) or Valkey
 * ({@code valkey-server}, {@code valkey-cli}), the same wire protocol, scripts and Sentinel and
 * Cluster modes. Chosen for a whole test JVM by the system property {@code dlock.server}, else the
 * environment variable {@code DLOCK_SERVER} ({@code redis} or {@code valkey}); Redis when neither is
 * set.
 */
public enum ServerKind {
    REDIS("redis-server", "redis-cli"),
    VALKEY("valkey-server", "valkey-cli");

    /** The system property that chooses the kind. */
    public static final String PROPERTY = "dlock.server";
    /** The environment variable that chooses the kind when the property is not set. */
    public static final String ENVIRONMENT = "DLOCK_SERVER";

    private final String serverBinary;
    private final String cliBinary;

    ServerKind(String serverBinary, String cliBinary) {
        this.serverBinary = serverBinary;
        this.cliBinary = cliBinary;
    }

    /** @return the server binary, looked up on the {@code PATH} */
    public String serverBinary() {
        return serverBinary;
    }

    /** @return the command-line client, looked up on the {@code PATH} */
    public String cliBinary() {
        return cliBinary;
    }

    /**
     * @return the kind chosen by {@value #PROPERTY} or {@value #ENVIRONMENT}, {@link #REDIS} by default
     * @throws IllegalArgumentException for a value that names no kind
     */
    public static ServerKind current() {
        String chosen = System.getProperty(PROPERTY);
        if (chosen == null || chosen.isBlank()) {
            chosen = System.getenv(ENVIRONMENT);
        }
        if (chosen == null || chosen.isBlank()) {
            return REDIS;
        }
        try {
            return valueOf(chosen.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(PROPERTY + "/" + ENVIRONMENT + " must be redis or valkey, got '" + chosen + "'", e);
        }
    }
}
