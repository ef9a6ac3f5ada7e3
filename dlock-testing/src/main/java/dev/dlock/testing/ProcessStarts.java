package dev.dlock.testing;

import java.io.IOException;
import java.time.Duration;

/**
 * Starts a program that may have just been written, such as a binary a test unpacked or a script it
 * wrote. While any process holds the file open for writing the kernel refuses to execute it
 * ({@code ETXTBSY}, "error=26, Text file busy"), and a JVM's writer is not the only one: a child that
 * another thread forks while the file is open inherits the descriptor, and keeps it until it has
 * closed its descriptors on the way to its own exec, which on a loaded machine can take a while after
 * the writer closed. So a refusal for that reason is tried again, for a bounded time.
 */
public final class ProcessStarts {

    /** How long a start is retried while the file is busy: far beyond a forked child's way to its exec. */
    static final Duration BUSY_BOUND = Duration.ofSeconds(10);
    private static final long FIRST_PAUSE_MS = 5;
    private static final long MAX_PAUSE_MS = 200;

    private ProcessStarts() {
    }

    /**
     * {@link ProcessBuilder#start()}, tried again while the program is busy ({@code ETXTBSY}), for at
     * most 10 s.
     *
     * @throws IOException as {@link ProcessBuilder#start()}; for a busy program, after 10 s of it
     */
    public static Process start(ProcessBuilder builder) throws IOException {
        long deadline = System.nanoTime() + BUSY_BOUND.toNanos();
        long pauseMs = FIRST_PAUSE_MS;
        while (true) {
            try {
                return builder.start();
            } catch (IOException e) {
                if (!isTextFileBusy(e) || System.nanoTime() - deadline >= 0) {
                    throw e;
                }
            }
            try {
                Thread.sleep(pauseMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while " + builder.command().get(0) + " was busy", e);
            }
            pauseMs = Math.min(MAX_PAUSE_MS, pauseMs * 2);
        }
    }

    /** The JDK reports the errno: "Cannot run program "...": error=26, Text file busy". */
    static boolean isTextFileBusy(IOException e) {
        String message = String.valueOf(e.getMessage());
        return message.contains("error=26,") || message.contains("Text file busy");
    }
}
