package dev.dlock.faults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * libfaketime (Debian's {@code faketime} package) for a client JVM whose wall clock is off and runs
 * at another rate. Only the wall clock is faked ({@code FAKETIME_DONT_FAKE_MONOTONIC}): dlock judges
 * leases on the monotonic clock and Redis's, and the campaign checks that a client's wrong wall clock
 * changes nothing.
 *
 * <p>libfaketime also shifts the CPU-time clocks, and a JVM starting under a shifted CPU clock
 * crawls through its class initialisation; the fake time starts 3 s after the process does
 * ({@code FAKETIME_START_AFTER_SECONDS}), by when the client has started. Each acquisition reports
 * the client's wall clock, so the history shows the skew took effect.
 */
final class Faketime {

    private static final List<String> LIBRARIES = List.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
            "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1");

    private Faketime() {
    }

    static Optional<String> library() {
        return LIBRARIES.stream().filter(path -> Files.isReadable(Path.of(path))).findFirst();
    }

    static Map<String, String> environment(String spec) {
        return Map.of("LD_PRELOAD", library().orElseThrow(), "FAKETIME", spec, "FAKETIME_DONT_FAKE_MONOTONIC", "1",
                "FAKETIME_START_AFTER_SECONDS", "3");
    }
}
