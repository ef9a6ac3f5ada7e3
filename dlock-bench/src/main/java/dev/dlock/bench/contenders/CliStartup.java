package dev.dlock.bench.contenders;

import dev.dlock.bench.Metric;
import dev.dlock.bench.Samples;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The cli-startup scenario: the wall time of {@code dlock status NAME} on a free lock, from
 * starting the process to its exit, as a person at a terminal waits for it. Two ways to run the
 * same jar: {@code java -jar dlock-cli.jar} with no JVM option, and the {@code ./dlock} launcher
 * (class data sharing archive, C1 only). Runs the checkout in the working directory, or the one
 * given with {@code --cli-root DIR} (another commit's build, to compare with this one in the same
 * conditions), with {@code dlock-cli/target/dlock-cli.jar} built; {@code java} is the one on the
 * PATH, as for the launcher.
 */
public final class CliStartup {

    private static final Path LAUNCHER = Path.of("dlock");
    private static final Path JAR = Path.of("dlock-cli", "target", "dlock-cli.jar");
    /** The checkout whose launcher and jar run: {@code --cli-root}, else the working directory. */
    private static volatile Path root = Path.of("");
    /** Timed runs per contender and round; the figure of a round is their median. */
    public static final int RUNS = 10;
    /**
     * Untimed runs first: the launcher's first run after a build makes its class data archive
     * (from a training run of every command); both warm the page cache for the jar.
     */
    static final int WARMUPS = 2;
    /** Runs started together in a batch: twenty hosts' cron starting one job at the same minute. */
    public static final int AT_ONCE = 20;
    /** Batches per contender and round; the figures of a round are their medians. */
    public static final int BATCHES = 3;
    private static final String LOCK = "bench:cli-startup";

    private CliStartup() {
    }

    /** Runs the launcher and jar of the checkout at {@code checkout} instead of the working directory's. */
    public static void runFrom(Path checkout) {
        root = checkout;
    }

    /** Why the scenario cannot run from here, if it cannot. */
    static Optional<String> unavailableReason() {
        if (!Files.isExecutable(root.resolve(LAUNCHER)) || !Files.isRegularFile(root.resolve(JAR))) {
            return Optional.of("run from the repository root (or give --cli-root DIR) after building dlock-cli "
                    + "(./mvnw -B -q -pl dlock-cli -am package -DskipTests): needs "
                    + root.resolve(LAUNCHER).toAbsolutePath() + " and " + root.resolve(JAR));
        }
        return Optional.empty();
    }

    static List<String> command(Contenders contender, String redisUri) {
        // "./dlock" and not "dlock": a bare name would be looked up on the PATH
        String launcher = root.toString().isEmpty() ? "./" + LAUNCHER : root.resolve(LAUNCHER).toString();
        return switch (contender) {
            case CLI_JAR -> List.of("java", "-jar", root.resolve(JAR).toString(), "--redis", redisUri, "status", LOCK);
            case CLI_LAUNCHER -> List.of(launcher, "--redis", redisUri, "status", LOCK);
            default -> throw new IllegalArgumentException("not a way to run the CLI: " + contender);
        };
    }

    public static Map<Metric, Double> run(Contenders contender, String redisUri) throws IOException, InterruptedException {
        List<String> command = command(contender, redisUri);
        for (int i = 0; i < WARMUPS; i++) {
            timeOnce(command);
        }
        long[] nanos = new long[RUNS];
        for (int i = 0; i < RUNS; i++) {
            nanos[i] = timeOnce(command);
        }
        Arrays.sort(nanos);
        Map<Metric, Double> figures = new EnumMap<>(Metric.class);
        figures.put(Metric.WALL_P50, Samples.percentileMicros(nanos, 50) / 1000);
        figures.put(Metric.WALL_MIN, nanos[0] / 1e6);
        figures.put(Metric.WALL_MAX, nanos[nanos.length - 1] / 1e6);
        long[] lastExits = new long[BATCHES];
        long[] medians = new long[BATCHES];
        long[] failures = new long[BATCHES];
        for (int b = 0; b < BATCHES; b++) {
            long[] batch = atOnce(command);
            failures[b] = Arrays.stream(batch).filter(took -> took < 0).count();
            long[] times = Arrays.stream(batch).map(Math::abs).sorted().toArray();
            lastExits[b] = times[times.length - 1];
            medians[b] = times[times.length / 2];
        }
        Arrays.sort(lastExits);
        Arrays.sort(medians);
        Arrays.sort(failures);
        figures.put(Metric.WALL_AT_ONCE, lastExits[BATCHES / 2] / 1e6);
        figures.put(Metric.WALL_AT_ONCE_P50, medians[BATCHES / 2] / 1e6);
        figures.put(Metric.WALL_AT_ONCE_FAILED, (double) failures[BATCHES / 2]);
        return figures;
    }

    /**
     * {@link #AT_ONCE} runs started together: each one's wall time from the batch's start to its
     * exit, negated for a run that did not exit 0.
     */
    private static long[] atOnce(List<String> command) throws IOException, InterruptedException {
        long start = System.nanoTime();
        List<CompletableFuture<Long>> runs = new ArrayList<>();
        for (int i = 0; i < AT_ONCE; i++) {
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            runs.add(process.onExit().thenApply(ended -> {
                long took = System.nanoTime() - start;
                return ended.exitValue() == 0 ? took : -took;
            }));
        }
        long[] nanos = new long[AT_ONCE];
        try {
            for (int i = 0; i < AT_ONCE; i++) {
                nanos[i] = runs.get(i).get(120, TimeUnit.SECONDS);
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("a batch of " + AT_ONCE + " runs of " + String.join(" ", command)
                    + " failed: " + e, e);
        }
        return nanos;
    }

    /** One run to its exit, in nanoseconds; fails unless it exits 0 saying the lock is free, and nothing else. */
    private static long timeOnce(List<String> command) throws IOException, InterruptedException {
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output;
        try (InputStream in = process.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " still running after 60 s");
        }
        long took = System.nanoTime() - start;
        // a JVM warning would end up in the command's output, where a script reads it
        if (process.exitValue() != 0 || !output.contains(": free") || output.contains("[warning]")) {
            throw new IllegalStateException(String.join(" ", command) + " exited " + process.exitValue()
                    + " saying: " + output.strip());
        }
        return took;
    }
}
