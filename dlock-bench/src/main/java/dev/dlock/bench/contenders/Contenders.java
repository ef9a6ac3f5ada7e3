package dev.dlock.bench.contenders;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The contenders and references, by the name used on the command line and in the report. */
public enum Contenders {

    /** One PING on one Lettuce connection: the round trip every figure is measured against. */
    RTT("1 RTT", RawContenders::ping),
    /** The least a correct single-node lock does: SET NX PX, then compare-and-delete by EVALSHA. */
    FLOOR("raw floor", RawContenders::floor),
    DLOCK("dlock", DlockContenders::plain),
    REDISSON("Redisson", RedissonContenders::plain),
    /** dlock's fair lock ({@code LockClient.getFairLock}): granted in the order it was asked for. */
    DLOCK_FAIR("dlock fair", DlockContenders::fair),
    /** Redisson's fair lock ({@code RedissonClient.getFairLock}, an RFairLock). */
    REDISSON_FAIR("Redisson fair", RedissonContenders::fair),
    /**
     * The least a correct quorum lock does, on all the given servers: SET NX PX on every server at
     * once, done when a majority said OK; then compare-and-delete on every server, done when a
     * majority answered. No retries, no validity arithmetic, no tokens.
     */
    QUORUM_FLOOR("raw quorum floor", RawContenders::quorumFloor),
    /**
     * The raw quorum floor with a fencing token by dlock's rule on every server (server TIME, a
     * token floor raised in the same script; {@link RawContenders#fencedQuorumFloor}): what a quorum
     * lock whose tokens stay increasing across a failover cannot do without. No re-entry, no wake-up.
     */
    FENCED_QUORUM_FLOOR("fenced quorum floor", RawContenders::fencedQuorumFloor),
    /**
     * The least a handoff from one process to another through Redis does ({@link RawHandoffFloor}):
     * one script call that names the next holder and publishes the grant to its process, whose
     * listener wakes a parked thread. Only in {@code contended-processes}, one ring member per JVM.
     */
    HANDOFF_FLOOR("raw handoff floor", RawHandoffFloor::open),
    /** dlock's Redlock over all the given servers. */
    DLOCK_REDLOCK("dlock Redlock", DlockContenders::redlock),
    /** RedissonRedLock over one Redisson client per server. */
    REDISSON_REDLOCK("RedissonRedLock", RedissonContenders::redlock),
    /** A permit of dlock's semaphore ({@code LockClient.getSemaphore}) of {@link dev.dlock.bench.Main#SEMAPHORE_PERMITS} permits. */
    DLOCK_SEMAPHORE("dlock semaphore", DlockContenders::semaphore),
    /** A permit of Redisson's RPermitExpirableSemaphore of {@link dev.dlock.bench.Main#SEMAPHORE_PERMITS} permits, with a lease. */
    REDISSON_SEMAPHORE("Redisson semaphore", RedissonContenders::semaphore),
    /** The dlock command's jar run as {@code java -jar}, with no JVM option ({@link CliStartup}). */
    CLI_JAR("java -jar", Contenders::processOnly),
    /** The same jar through the {@code ./dlock} launcher ({@link CliStartup}). */
    CLI_LAUNCHER("./dlock", Contenders::processOnly);

    private final String label;
    private final Contender.Factory factory;

    Contenders(String label, Contender.Factory factory) {
        this.label = label;
        this.factory = factory;
    }

    public String label() {
        return label;
    }

    /**
     * Why this build cannot run the contender, if it cannot; checked before a run is started so
     * the report can show the reason instead of a figure.
     */
    public Optional<String> unavailableReason() {
        return this == CLI_JAR || this == CLI_LAUNCHER ? CliStartup.unavailableReason() : Optional.empty();
    }

    /** The CLI runs as a child process per measurement ({@link CliStartup}): there is no client to open. */
    private static Contender processOnly(List<String> uris, Contender.Settings settings) {
        throw new Unavailable("the command line runs as a process of its own, not as a client in this one");
    }

    /** Connects; throws {@link Unavailable} when this build has no such contender. */
    public Contender open(List<String> uris, Contender.Settings settings) {
        return factory.open(uris, settings);
    }

    public static Contenders byName(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_'));
    }
}
