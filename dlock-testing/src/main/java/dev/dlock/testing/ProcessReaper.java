package dev.dlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kills every child process the harness started when the test JVM shuts down.
 *
 * <p>Without this, a test JVM that exits early (System.exit, an uncaught error in a fork, a surefire
 * timeout that ends the fork normally) would leave redis-server processes and child JVMs running and
 * holding ports. A JVM killed with SIGKILL cannot run hooks; nothing in pure Java can cover that.
 */
final class ProcessReaper {

    private static final Set<Process> PROCESSES = ConcurrentHashMap.newKeySet();
    private static final Set<Path> DIRECTORIES = ConcurrentHashMap.newKeySet();
    private static volatile boolean hookInstalled;

    private ProcessReaper() {}

    static void register(Process process) {
        installHook();
        PROCESSES.add(process);
    }

    static void unregister(Process process) {
        PROCESSES.remove(process);
    }

    static void registerDirectory(Path dir) {
        installHook();
        DIRECTORIES.add(dir);
    }

    static void unregisterDirectory(Path dir) {
        DIRECTORIES.remove(dir);
    }

    private static void installHook() {
        if (hookInstalled) {
            return;
        }
        synchronized (ProcessReaper.class) {
            if (!hookInstalled) {
                Runtime.getRuntime().addShutdownHook(new Thread(ProcessReaper::reapAll, "dlock-testing-reaper"));
                hookInstalled = true;
            }
        }
    }

    private static void reapAll() {
        // SIGKILL also ends stopped (SIGSTOP-ed) processes, so paused servers need no SIGCONT first.
        // Children first: a PostgreSQL server's backends outlive a killed postmaster for a while.
        for (Process p : PROCESSES) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        for (Process p : PROCESSES) {
            try {
                p.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        for (Path dir : DIRECTORIES) {
            try {
                deleteRecursively(dir);
            } catch (UncheckedIOException ignored) {
                // best effort at JVM exit: a leftover temp dir is harmless
            }
        }
    }

    static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException exc) throws IOException {
                    if (exc instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw exc;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("Could not delete " + root, e);
        }
    }

    /** The last {@code maxLines} lines of a text file, or a note if it cannot be read. */
    static String tail(Path file, int maxLines) {
        try {
            if (!Files.exists(file)) {
                return "<no " + file.getFileName() + ">";
            }
            // Decoding leniently: a child may write partial or non-UTF-8 output.
            String text = new String(Files.readAllBytes(file), java.nio.charset.StandardCharsets.UTF_8);
            String[] lines = text.split("\\R");
            int from = Math.max(0, lines.length - maxLines);
            return String.join(System.lineSeparator(), java.util.Arrays.asList(lines).subList(from, lines.length));
        } catch (IOException e) {
            return "<could not read " + file + ": " + e + ">";
        }
    }

    /**
     * SIGKILLs the process and waits until it is gone, even if interrupted (the interrupt flag is
     * set again afterwards): callers rely on it being gone, e.g. its port free, its locks no
     * longer renewed.
     */
    static void killAndWait(Process process) {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
        boolean interrupted = false;
        while (true) {
            try {
                process.waitFor();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        unregister(process);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
