package dev.dlock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The campaign's skewed clock, in a real JVM: its wall clock is off and runs at the chosen rate,
 * while its monotonic clock and its waits stay true (libfaketime's rate shortened the waits too).
 */
class SkewedClockTest {

    /** Run under the skewed clock: prints its wall clock, then how far the wall and monotonic clocks moved across waits. */
    public static final class Probe {
        public static void main(String[] args) throws Exception {
            long wall0 = System.currentTimeMillis();
            long nano0 = System.nanoTime();
            Thread.sleep(1000);
            Object monitor = new Object();
            synchronized (monitor) {
                monitor.wait(500);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            long wall1 = System.currentTimeMillis();
            long nano1 = System.nanoTime();
            System.out.println(wall0 + " " + (wall1 - wall0) + " " + TimeUnit.NANOSECONDS.toMillis(nano1 - nano0));
        }
    }

    @Test
    void aFastClockIsAheadAndRunsFastWhileWaitsStayTrue(@TempDir Path dir) throws Exception {
        long[] probe = probe(dir, SkewedClock.HOUR_MS, 1.5);
        assertThat(probe[0]).as("wall clock ahead by").isBetween(SkewedClock.HOUR_MS - 60_000, SkewedClock.HOUR_MS + 60_000);
        // 2 s of waits: shortened by a faked rate they would take 1.33 s of monotonic time
        assertThat(probe[2]).as("monotonic ms across 2 s of waits").isGreaterThanOrEqualTo(2000);
        assertThat((double) probe[1] / probe[2]).as("wall clock rate").isBetween(1.45, 1.55);
    }

    @Test
    void aSlowClockIsBehindAndRunsSlowWhileWaitsStayTrue(@TempDir Path dir) throws Exception {
        long[] probe = probe(dir, -SkewedClock.HOUR_MS, 0.5);
        assertThat(probe[0]).as("wall clock behind by").isBetween(-SkewedClock.HOUR_MS - 60_000, -SkewedClock.HOUR_MS + 60_000);
        assertThat(probe[2]).as("monotonic ms across 2 s of waits").isGreaterThanOrEqualTo(2000);
        assertThat((double) probe[1] / probe[2]).as("wall clock rate").isBetween(0.45, 0.55);
    }

    /** The probe's wall clock minus this JVM's, its wall clock's advance and its monotonic clock's, in ms. */
    private static long[] probe(Path dir, long offsetMs, double rate) throws Exception {
        StringBuilder whyNot = new StringBuilder();
        Optional<Path> library = SkewedClock.compile(dir, whyNot);
        assumeThat(library).as(whyNot.toString()).isPresent();
        List<String> cmd = new ArrayList<>(List.of(Workers.javaExecutable()));
        cmd.addAll(Workers.JVM_OPTIONS);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Probe.class.getName()));
        Path log = dir.resolve("probe.log");
        ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().putAll(new SkewedClock(library.get(), offsetMs, rate).environment());
        long before = System.currentTimeMillis();
        Process process = builder.start();
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("probe finished").isTrue();
        String output = Files.readString(log).strip();
        assertThat(process.exitValue()).as(output).isZero();
        String[] fields = output.lines().reduce((a, b) -> b).orElseThrow().split(" ");
        // the probe read its clock after it started: its offset is the skew plus what its rate added since
        return new long[] {Long.parseLong(fields[0]) - before, Long.parseLong(fields[1]), Long.parseLong(fields[2])};
    }
}
