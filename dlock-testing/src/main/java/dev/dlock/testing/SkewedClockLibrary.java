package dev.dlock.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A small library that, preloaded into a process, moves its wall clock only: CLOCK_REALTIME (and
 * {@code gettimeofday}, {@code time}) reads {@code offsetMs} off and runs {@code rate} times as
 * fast as the true one; the monotonic clock and the timeouts of every wait stay true, as on a host
 * whose clock NTP no longer keeps. Its source, {@code skewed-clock.c}, is compiled with gcc.
 *
 * <p>libfaketime is not used: its rate also shortens or stretches the process's waits (a client's
 * network thread spin), and under it redis-server does not start (its allocator recurses).
 */
public final class SkewedClockLibrary {

    private SkewedClockLibrary() {
    }

    /**
     * Compiles the library into {@code dir}, or says in {@code whyNot} why it cannot (not Linux, no
     * gcc, or gcc failed).
     */
    public static Optional<Path> compile(Path dir, StringBuilder whyNot) {
        if (!System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")) {
            whyNot.append("a preloaded library moves the wall clock only on Linux");
            return Optional.empty();
        }
        Path source = dir.resolve("skewed-clock.c");
        Path library = dir.resolve("skewed-clock.so");
        try (InputStream in = SkewedClockLibrary.class.getResourceAsStream("skewed-clock.c")) {
            Files.copy(in, source);
            Process gcc = new ProcessBuilder("gcc", "-shared", "-fPIC", "-O2", "-o", library.toString(), source.toString())
                    .redirectErrorStream(true).start();
            String output = new String(gcc.getInputStream().readAllBytes());
            if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
                whyNot.append("gcc could not compile ").append(source).append(": ").append(output.strip());
                return Optional.empty();
            }
            return Optional.of(library);
        } catch (IOException e) {
            whyNot.append("cannot run gcc (").append(e.getMessage()).append(")");
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException("interrupted while compiling " + source));
        }
    }

    /** The environment that preloads {@code library} with a clock {@code offsetMs} off, running {@code rate} times as fast. */
    public static Map<String, String> environment(Path library, long offsetMs, double rate) {
        return Map.of("LD_PRELOAD", library.toString(), "DLOCK_CLOCK_OFFSET_MS", Long.toString(offsetMs),
                "DLOCK_CLOCK_RATE", Double.toString(rate));
    }
}
