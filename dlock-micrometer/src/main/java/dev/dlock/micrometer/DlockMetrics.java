package dev.dlock.micrometer;

import dev.dlock.LockKind;
import dev.dlock.LockObserver;
import dev.dlock.RedisStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * dlock's metrics as Micrometer meters: a {@link LockObserver} to give to
 * {@link dev.dlock.LockClientBuilder#observer(LockObserver)}.
 *
 * <pre>{@code
 * LockClient client = LockClient.builder()
 *         .store(RedisStore.standalone("redis://localhost:6379"))
 *         .observer(DlockMetrics.of(meterRegistry))
 *         .build();
 * }</pre>
 *
 * <table>
 * <caption>Meters (base unit of timers: seconds)</caption>
 * <tr><th>name</th><th>type</th><th>tags</th><th>what</th></tr>
 * <tr><td>{@value #ACQUIRE_WAIT}</td><td>timer</td><td>kind, outcome</td><td>each acquisition, from its start to its outcome</td></tr>
 * <tr><td>{@value #HOLD}</td><td>timer</td><td>kind, ending</td><td>each hold, from its grant to its release or loss</td></tr>
 * <tr><td>{@value #LOCKS_HELD}</td><td>gauge</td><td></td><td>holds of the clients using this registry now</td></tr>
 * <tr><td>{@value #WAITERS}</td><td>gauge</td><td></td><td>acquisitions waiting now (threads and handles)</td></tr>
 * <tr><td>{@value #RENEWALS}</td><td>counter</td><td></td><td>leases extended by the watchdog</td></tr>
 * <tr><td>{@value #RENEWAL_FAILURES}</td><td>counter</td><td></td><td>holds a renewal could not reach (no answer)</td></tr>
 * <tr><td>{@value #RENEWAL_LAG}</td><td>timer</td><td></td><td>how late each watchdog round started</td></tr>
 * <tr><td>{@value #LOSSES}</td><td>counter</td><td>kind, cause</td><td>holds lost</td></tr>
 * <tr><td>{@value #STORE_CALLS}</td><td>timer</td><td>call, outcome</td><td>each call to the store: a Redis script (Redlock: per node), a PostgreSQL function</td></tr>
 * </table>
 *
 * <p>Tag values are lower case: kind {@code reentrant|fair|read|write}; acquire outcome
 * {@code acquired|busy|timed_out|interrupted|error}; ending {@code released|lost}; cause
 * {@code expired|gone|force_released|backend_unreachable}; store call outcome {@code ok|error}.
 * The lock's name is never a tag unless {@link Builder#lockNameTag(Function)} maps names to a
 * few values, which then tag the acquire, hold and loss meters as {@code lock}. Several clients
 * may share one registry (and one {@code DlockMetrics}): their meters add up, the gauges too.
 *
 * <p>With an {@link ObservationRegistry} ({@link Builder#observationRegistry}), each acquisition
 * is also an {@link Observation} named {@value #ACQUIRE_OBSERVATION} (a span, with a tracing
 * handler), started on the acquiring thread and so a child of the observation current there.
 */
public final class DlockMetrics implements LockObserver {

    /** Timer of each acquisition, from its start to its outcome; tags {@code kind}, {@code outcome}. */
    public static final String ACQUIRE_WAIT = "dlock.acquire.wait";
    /** Timer of each hold, from its grant to its release or loss; tags {@code kind}, {@code ending}. */
    public static final String HOLD = "dlock.hold";
    /** Gauge of the holds right now, of every client using the registry. */
    public static final String LOCKS_HELD = "dlock.locks.held";
    /** Gauge of the acquisitions waiting right now (threads and handles). */
    public static final String WAITERS = "dlock.waiters";
    /** Counter of leases extended by the watchdog. */
    public static final String RENEWALS = "dlock.renewals";
    /** Counter of holds a watchdog renewal could not reach because Redis did not answer. */
    public static final String RENEWAL_FAILURES = "dlock.renewal.failures";
    /** Timer of how late each watchdog round started. */
    public static final String RENEWAL_LAG = "dlock.renewal.lag";
    /** Counter of holds lost before their holder released them; tags {@code kind}, {@code cause}. */
    public static final String LOSSES = "dlock.losses";
    /**
     * Timer of each call to the store, whatever the store: a Redis script (Redlock: per master), a
     * PostgreSQL function; tags {@code call} (the script's or function's name: {@code acquire},
     * {@code release}, ...), {@code outcome}.
     */
    public static final String STORE_CALLS = "dlock.store.calls";
    /** The name of the acquisition's {@link Observation}. */
    public static final String ACQUIRE_OBSERVATION = "dlock.acquire";

    static final String[] KINDS = tagValues(LockKind.values());
    static final String[] OUTCOMES = tagValues(AcquireOutcome.values());
    static final String[] ENDINGS = tagValues(HoldEnding.values());
    static final String[] CAUSES = tagValues(LossCause.values());

    private final MeterRegistry registry;
    private final Function<String, String> lockNameTag;
    private final ObservationRegistry observations;
    private final boolean histograms;
    private final SharedGauges gauges;
    private final Counter renewals;
    private final Counter renewalFailures;
    private final Timer renewalLag;
    /** The meters without a lock tag; with one, per tag value in {@link #byLockTag}. */
    private final LockMeters untagged;
    private final ConcurrentHashMap<String, LockMeters> byLockTag = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Timer[]> storeCalls = new ConcurrentHashMap<>();

    private DlockMetrics(Builder builder) {
        this.registry = builder.registry;
        this.lockNameTag = builder.lockNameTag;
        this.observations = builder.observations;
        this.histograms = builder.histograms;
        this.gauges = SharedGauges.of(registry);
        this.renewals = Counter.builder(RENEWALS).description("leases extended by the dlock watchdog")
                .register(registry);
        this.renewalFailures = Counter.builder(RENEWAL_FAILURES)
                .description("dlock holds a watchdog renewal could not reach (Redis did not answer)").register(registry);
        this.renewalLag = Timer.builder(RENEWAL_LAG).description("how late each dlock watchdog round started")
                .publishPercentileHistogram(histograms).register(registry);
        this.untagged = new LockMeters(registry, Tags.empty(), histograms, lockNameTag == null);
    }

    /**
     * The meters on {@code registry}, without a lock tag or observations.
     *
     * @param registry where the meters go
     * @return the observer to give to {@link dev.dlock.LockClientBuilder#observer(LockObserver)}
     * @throws IllegalArgumentException the registry is null
     */
    public static DlockMetrics of(MeterRegistry registry) {
        return builder(registry).build();
    }

    /**
     * Starts configuring the meters on {@code registry}.
     *
     * @param registry where the meters go
     * @return a builder
     * @throws IllegalArgumentException the registry is null
     */
    public static Builder builder(MeterRegistry registry) {
        if (registry == null) {
            throw new IllegalArgumentException("registry must not be null");
        }
        return new Builder(registry);
    }

    @Override
    public Object acquireStarted(LockKind kind, String lockName) {
        if (observations == null) {
            return null;
        }
        Observation observation = Observation.createNotStarted(ACQUIRE_OBSERVATION, observations)
                .contextualName("dlock acquire")
                .lowCardinalityKeyValue("kind", KINDS[kind.ordinal()])
                .highCardinalityKeyValue("lock.name", lockName);
        String lockTag = lockTag(lockName);
        if (lockTag != null) {
            observation.lowCardinalityKeyValue("lock", lockTag);
        }
        return observation.start();
    }

    @Override
    public void acquireFinished(LockKind kind, String lockName, AcquireOutcome outcome, long waitNanos, Object started) {
        meters(lockName).acquireWait(kind, outcome).record(waitNanos, TimeUnit.NANOSECONDS);
        if (started instanceof Observation observation) {
            observation.lowCardinalityKeyValue("outcome", OUTCOMES[outcome.ordinal()]).stop();
        }
    }

    @Override
    public void waitStarted(LockKind kind, String lockName) {
        gauges.waiters.incrementAndGet();
    }

    @Override
    public void waitEnded(LockKind kind, String lockName) {
        gauges.waiters.decrementAndGet();
    }

    @Override
    public void holdStarted(LockKind kind, String lockName) {
        gauges.held.incrementAndGet();
    }

    @Override
    public void holdEnded(LockKind kind, String lockName, long heldNanos, HoldEnding ending) {
        gauges.held.decrementAndGet();
        meters(lockName).hold(kind, ending).record(heldNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void lost(LockKind kind, String lockName, LossCause cause) {
        meters(lockName).loss(kind, cause).increment();
    }

    @Override
    public void renewalRound(int holds, long lagNanos) {
        renewalLag.record(lagNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void renewalBatch(int renewed, int failed) {
        if (renewed > 0) {
            renewals.increment(renewed);
        }
        if (failed > 0) {
            renewalFailures.increment(failed);
        }
    }

    @Override
    public void scriptCall(String script, long nanos, boolean ok) {
        Timer[] timers = storeCalls.computeIfAbsent(script, name -> new Timer[] {storeCall(name, "ok"),
                storeCall(name, "error")});
        timers[ok ? 0 : 1].record(nanos, TimeUnit.NANOSECONDS);
    }

    private Timer storeCall(String call, String outcome) {
        return Timer.builder(STORE_CALLS).description("dlock's calls to its store (Redis scripts, PostgreSQL functions), "
                        + "as the client saw them")
                .tags("call", call, "outcome", outcome).publishPercentileHistogram(histograms).register(registry);
    }

    private String lockTag(String lockName) {
        return lockNameTag == null ? null : lockNameTag.apply(lockName);
    }

    private LockMeters meters(String lockName) {
        String lockTag = lockTag(lockName);
        if (lockTag == null) {
            return untagged;
        }
        return byLockTag.computeIfAbsent(lockTag, tag -> new LockMeters(registry, Tags.of("lock", tag), histograms, true));
    }

    private static String[] tagValues(Enum<?>[] values) {
        String[] tags = new String[values.length];
        for (Enum<?> value : values) {
            tags[value.ordinal()] = value.name().toLowerCase(Locale.ROOT);
        }
        return tags;
    }

    /** Configures a {@link DlockMetrics}; each option may be set once. */
    public static final class Builder {
        private final MeterRegistry registry;
        private Function<String, String> lockNameTag;
        private ObservationRegistry observations;
        private Boolean histograms;

        private Builder(MeterRegistry registry) {
            this.registry = registry;
        }

        /**
         * Adds the tag {@code lock} to the acquire, hold and loss meters (and the acquire
         * observation), with the value this function gives for a lock's name: keep the values few,
         * e.g. {@code name -> name.substring(0, name.indexOf(':'))} turns {@code order:1234} into
         * {@code order}. A null value leaves that lock's meters without the tag. Give the same
         * function to every {@code DlockMetrics} on one registry (some registries, Prometheus's,
         * refuse one meter name with different tag keys). Default: no lock tag.
         *
         * @param lockNameTag from lock name to tag value; called on every event of a lock, so cheap
         * @return this builder
         * @throws IllegalArgumentException the function is null
         * @throws IllegalStateException    set already
         */
        public Builder lockNameTag(Function<String, String> lockNameTag) {
            if (lockNameTag == null) {
                throw new IllegalArgumentException("lockNameTag must not be null");
            }
            if (this.lockNameTag != null) {
                throw new IllegalStateException("lockNameTag was set already");
            }
            this.lockNameTag = lockNameTag;
            return this;
        }

        /**
         * Makes every acquisition an {@link Observation} named {@value #ACQUIRE_OBSERVATION} in
         * this registry as well (low-cardinality key values {@code kind}, {@code outcome} and,
         * with {@link #lockNameTag}, {@code lock}; high-cardinality {@code lock.name}): a span
         * when the registry has a tracing handler. Default: none; the meters exist either way.
         *
         * @param registry where the observations go
         * @return this builder
         * @throws IllegalArgumentException the registry is null
         * @throws IllegalStateException    set already
         */
        public Builder observationRegistry(ObservationRegistry registry) {
            if (registry == null) {
                throw new IllegalArgumentException("observationRegistry must not be null");
            }
            if (observations != null) {
                throw new IllegalStateException("observationRegistry was set already");
            }
            this.observations = registry;
            return this;
        }

        /**
         * Publishes a percentile histogram with every timer (Prometheus's
         * {@code histogram_quantile} needs one), about 70 buckets per tag combination. Default:
         * off (a registry's own {@code MeterFilter} can turn it on per meter as well).
         *
         * @param publish whether to publish histograms
         * @return this builder
         * @throws IllegalStateException set already
         */
        public Builder percentileHistograms(boolean publish) {
            if (histograms != null) {
                throw new IllegalStateException("percentileHistograms was set already");
            }
            this.histograms = publish;
            return this;
        }

        /**
         * Registers the meters that exist from the start, at zero: the gauges, the renewal meters,
         * the losses of every kind and cause, and the acquisitions of every kind that timed out or
         * failed (those alerts read, so that an alert on their increase sees the first event; with
         * {@link #lockNameTag}, those of each tag value from the first event of that value). The
         * others appear with their first event; a Redis script's two call timers (ok, error) with
         * its first call.
         *
         * @return the observer
         */
        public DlockMetrics build() {
            if (histograms == null) {
                histograms = false;
            }
            return new DlockMetrics(this);
        }
    }
}
