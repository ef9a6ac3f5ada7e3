package dev.dlock.bench;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * The single-thread scenarios under JMH: one acquire+release pair of one lock per invocation, on
 * one thread (the {@code uncontended} and {@code redlock} scenarios; for {@link Contenders#RTT}
 * one PING). {@link Main} runs it one fork per contender and round with the parameters filled in.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
public class SingleThreadBenchmark {

    /** A {@link Contenders} name. */
    @Param("DLOCK")
    public String contender;

    /** Comma-separated URIs of the servers (one for single-node contenders, all for Redlock). */
    @Param("redis://127.0.0.1:6379")
    public String uris;

    @Param("bench:uncontended")
    public String lockName;

    private Contender open;
    private BenchLock lock;

    @Setup(Level.Trial)
    public void connect() {
        List<String> servers = Arrays.asList(uris.split(","));
        open = Contenders.byName(contender).open(servers, Contender.Settings.DEFAULTS);
        lock = open.lock(lockName);
    }

    @TearDown(Level.Trial)
    public void disconnect() {
        open.close();
    }

    @Benchmark
    public void acquireRelease() {
        lock.lock();
        lock.unlock();
    }
}
