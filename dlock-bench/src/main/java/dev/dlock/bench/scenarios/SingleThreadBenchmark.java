package dev.dlock.bench.scenarios;

import dev.dlock.bench.ServerCpu;
import dev.dlock.bench.contenders.BenchLock;
import dev.dlock.bench.contenders.Contender;
import dev.dlock.bench.contenders.Contenders;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
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
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * The single-thread scenarios under JMH: one acquire+release pair of one lock per invocation, on
 * one thread (the {@code uncontended} and {@code redlock} scenarios; for {@link Contenders#RTT}
 * one PING). {@link dev.dlock.bench.Main} runs it one fork per contender and round with the parameters filled in.
 *
 * <p>It also counts the pairs of the measured iterations and the servers' CPU time over them
 * ({@link ServerCpu}, read between iterations, outside the timed part), and writes both to
 * {@link #cpuFile} at the end for {@link dev.dlock.bench.Main} to divide.
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

    /** Where to write "server CPU µs, pairs" of the measured iterations; empty: not measured. */
    @Param("")
    public String cpuFile;

    private Contender open;
    private BenchLock lock;
    private ServerCpu serverCpu;
    private long pairs;
    private long pairsAtIterationStart;
    private double cpuAtIterationStart;
    private long measuredPairs;
    private double measuredCpuMicros;

    @Setup(Level.Trial)
    public void connect() {
        List<String> servers = Arrays.asList(uris.split(","));
        open = Contenders.byName(contender).open(servers, Contender.Settings.DEFAULTS);
        lock = open.lock(lockName);
        if (!cpuFile.isEmpty()) {
            serverCpu = new ServerCpu(servers);
        }
    }

    @Setup(Level.Iteration)
    public void iterationStarts(IterationParams iteration) {
        if (serverCpu != null && iteration.getType() == IterationType.MEASUREMENT) {
            cpuAtIterationStart = serverCpu.micros();
            pairsAtIterationStart = pairs;
        }
    }

    @TearDown(Level.Iteration)
    public void iterationEnds(IterationParams iteration) {
        if (serverCpu != null && iteration.getType() == IterationType.MEASUREMENT) {
            measuredCpuMicros += serverCpu.micros() - cpuAtIterationStart;
            measuredPairs += pairs - pairsAtIterationStart;
        }
    }

    @TearDown(Level.Trial)
    public void disconnect() {
        open.close();
        if (serverCpu != null) {
            serverCpu.close();
            try {
                Files.writeString(Path.of(cpuFile), String.format(Locale.ROOT, "%.3f %d%n", measuredCpuMicros,
                        measuredPairs));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Benchmark
    public void acquireRelease() {
        lock.lock();
        lock.unlock();
        pairs++;
    }
}
