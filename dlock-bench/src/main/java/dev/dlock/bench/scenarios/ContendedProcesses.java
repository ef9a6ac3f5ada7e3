package dev.dlock.bench.scenarios;

import dev.dlock.bench.Metric;
import dev.dlock.bench.contenders.Contender;
import dev.dlock.bench.contenders.Contenders;
import dev.dlock.testing.JavaProcess;
import dev.dlock.testing.JavaProcesses;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The contended-processes scenario: the contended load with its threads in several JVMs, one
 * client of the library each, as the waiters of a lock in a real deployment are. The parent starts
 * the children, waits until each has connected, then runs the phases through a mapped file they
 * all share ({@link ContendedArena}); each child writes its threads' tallies to a file, which the
 * parent merges into the same figures as {@code contended}.
 */
public final class ContendedProcesses {

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(60);

    private ContendedProcesses() {
    }

    public static Map<Metric, Double> run(Contenders contender, List<String> uris, String lockName, int processes,
                                   int threadsEach, Duration warmup, Duration measure)
            throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("dlock-bench-processes-");
        List<JavaProcess> children = new ArrayList<>();
        try {
            Path arenaFile = dir.resolve("arena");
            ContendedArena.Mapped arena = ContendedArena.mapped(arenaFile, true);
            for (int p = 0; p < processes; p++) {
                children.add(JavaProcesses.start(Path.of(System.getProperty("java.home"), "bin", "java"),
                        List.of("-Xms128m", "-Xmx256m"), ContendedProcesses.class,
                        List.of(contender.name(), String.join(",", uris), lockName, Integer.toString(threadsEach),
                                Integer.toString(p * threadsEach), arenaFile.toString(),
                                dir.resolve("tallies-" + p).toString())));
            }
            awaitReady(arena, children);
            arena.setPhase(ContendedArena.WARMUP);
            LoadScenarios.sleep(warmup);
            long start = System.nanoTime();
            if (arena.phase() == ContendedArena.WARMUP) {
                arena.setPhase(ContendedArena.MEASURE);
            }
            LoadScenarios.sleep(measure);
            arena.setPhase(ContendedArena.STOP);
            long measured = System.nanoTime() - start;
            List<ContendedTally> tallies = new ArrayList<>();
            for (int p = 0; p < processes; p++) {
                JavaProcess child = children.get(p);
                int exit = child.waitFor(Duration.ofSeconds(60));
                if (exit != 0) {
                    throw new IllegalStateException("child " + p + " exited " + exit + ":\n" + child.log());
                }
                try (DataInputStream in = new DataInputStream(new BufferedInputStream(
                        Files.newInputStream(dir.resolve("tallies-" + p))))) {
                    for (int t = 0; t < threadsEach; t++) {
                        tallies.add(ContendedTally.readFrom(in));
                    }
                }
            }
            return ContendedTally.figures(tallies, measured, arena.violations());
        } finally {
            children.forEach(JavaProcess::close);
            try (var files = Files.list(dir)) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    private static void awaitReady(ContendedArena.Mapped arena, List<JavaProcess> children) {
        long deadline = System.nanoTime() + CONNECT_TIMEOUT.toNanos();
        while (arena.readyCount() < children.size()) {
            for (JavaProcess child : children) {
                if (!child.process().isAlive()) {
                    throw new IllegalStateException("a child exited before it was ready:\n" + child.log());
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("only " + arena.readyCount() + " of " + children.size()
                        + " children connected within " + CONNECT_TIMEOUT.toSeconds() + " s");
            }
            LoadScenarios.sleep(Duration.ofMillis(10));
        }
    }

    /**
     * A child: {@code CONTENDER URIS LOCK THREADS FIRST_THREAD ARENA_FILE TALLY_FILE}. Opens one
     * client, says it is ready, runs its threads until the arena says stop, writes their tallies.
     */
    public static void main(String[] args) {
        try {
            runChild(args);
        } catch (Throwable e) {
            e.printStackTrace();
            System.exit(1);
        }
        // the libraries' own threads may not be daemons
        System.exit(0);
    }

    private static void runChild(String[] args) throws Exception {
        if (args.length != 7) {
            throw new IllegalArgumentException("expected 7 arguments, got " + Arrays.toString(args));
        }
        Contenders contender = Contenders.valueOf(args[0]);
        List<String> uris = List.of(args[1].split(","));
        int threads = Integer.parseInt(args[3]);
        int first = Integer.parseInt(args[4]);
        ContendedArena.Mapped arena = ContendedArena.mapped(Path.of(args[5]), false);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<ContendedTally> tallies = new ArrayList<>();
        try (Contender client = contender.open(uris, Contender.Settings.DEFAULTS)) {
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                ContendedTally tally = new ContendedTally(first + t);
                tallies.add(tally);
                workers.add(LoadScenarios.contendedWorker(client.lock(args[2]), 1, arena, tally, failure));
            }
            workers.forEach(Thread::start);
            arena.ready();
            for (Thread worker : workers) {
                worker.join(TimeUnit.MINUTES.toMillis(10));
                if (worker.isAlive()) {
                    throw new IllegalStateException(worker.getName() + " did not stop (stuck in lock()?)");
                }
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a worker failed: " + failure.get(), failure.get());
        }
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(Path.of(args[6]))))) {
            for (ContendedTally tally : tallies) {
                tally.writeTo(out);
            }
        }
    }
}
