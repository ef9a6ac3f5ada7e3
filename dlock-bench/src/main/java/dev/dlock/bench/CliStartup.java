package dev.dlock.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The cli-startup scenario: the wall time of {@code dlock status NAME} on a free lock, from
 * starting the process to its exit, as a person at a terminal waits for it. Two ways to run the
 * same jar: {@code java -jar dlock-cli.jar} with no JVM option, and the {@code ./dlock} launcher
 * (class data sharing archive, C1 only). Needs the working directory to be the repository root,
 * with {@code dlock-cli/target/dlock-cli.jar} built; {@code java} is the one on the PATH, as
 * for the launcher.
 */
final class CliStartup {

    static final Path LAUNCHER = Path.of("dlock");
    static final Path JAR = Path.of("dlock-cli", "target", "dlock-cli.jar");
    /** Timed runs per contender and round; the figure of a round is their median. */
    static final int RUNS = 10;
    /**
     * Untimed runs first: the launcher's first run after a build lists the classes it loads, the
     * second dumps its archive of them; both warm the page cache for the jar.
     */
    static final int WARMUPS = 2;
    private static final String LOCK = "bench:cli-startup";

    private CliStartup() {
    }

    /** Why the scenario cannot run from here, if it cannot. */
    static Optional<String> unavailableReason() {
        if (!Files.isExecutable(LAUNCHER) || !Files.isRegularFile(JAR)) {
            return Optional.of("run from the repository root after building dlock-cli "
                    + "(./mvnw -B -q -pl dlock-cli -am package -DskipTests): needs ./dlock and " + JAR);
        }
        return Optional.empty();
    }

    static List<String> command(Contenders contender, String redisUri) {
        return switch (contender) {
            case CLI_JAR -> List.of("java", "-jar", JAR.toString(), "--redis", redisUri, "status", LOCK);
            case CLI_LAUNCHER -> List.of("./" + LAUNCHER, "--redis", redisUri, "status", LOCK);
            default -> throw new IllegalArgumentException("not a way to run the CLI: " + contender);
        };
    }

    static Map<Metric, Double> run(Contenders contender, String redisUri) throws IOException, InterruptedException {
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
        return figures;
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
