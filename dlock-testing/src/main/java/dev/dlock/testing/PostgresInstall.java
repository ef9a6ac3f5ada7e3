package dev.dlock.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Where the PostgreSQL (and PgBouncer) binaries are, and how to run them: PostgreSQL refuses to run
 * as root, so when the tests run as root every server process and every file it owns belongs to the
 * {@code postgres} OS user, which the Debian packages create.
 */
final class PostgresInstall {

    static final String OS_USER = "postgres";
    private static volatile Path bindir;

    private PostgresInstall() {
    }

    /**
     * @return the directory holding {@code initdb} and {@code postgres}: {@code pg_config --bindir}
     *     when it has them, else the newest {@code /usr/lib/postgresql/N/bin}
     * @throws IllegalStateException naming what was looked at when no server binaries are found
     */
    static Path bindir() {
        Path found = bindir;
        if (found != null) {
            return found;
        }
        List<Path> candidates = new ArrayList<>();
        try {
            String reported = run(List.of("pg_config", "--bindir"), null).strip();
            if (!reported.isEmpty()) {
                candidates.add(Path.of(reported));
            }
        } catch (RuntimeException noPgConfig) {
            // the Debian server packages do not always put pg_config on the PATH
        }
        Path debian = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                versions.filter(v -> v.getFileName().toString().matches("\\d+"))
                        .sorted(Comparator.comparingInt((Path v) -> Integer.parseInt(v.getFileName().toString())).reversed())
                        .forEach(v -> candidates.add(v.resolve("bin")));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        for (Path dir : candidates) {
            if (Files.isExecutable(dir.resolve("initdb")) && Files.isExecutable(dir.resolve("postgres"))) {
                bindir = dir;
                return dir;
            }
        }
        throw new IllegalStateException("no PostgreSQL server binaries (initdb, postgres) found in " + candidates
                + ": install the server package (Debian: apt-get install postgresql)");
    }

    static String binary(String name) {
        return bindir().resolve(name).toString();
    }

    static boolean runningAsRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** @return {@code command} prefixed so that it runs as the {@code postgres} OS user when we are root */
    static List<String> asServerUser(List<String> command) {
        if (!runningAsRoot()) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(List.of(
                "setpriv", "--reuid=" + OS_USER, "--regid=" + OS_USER, "--init-groups", "--"));
        wrapped.addAll(command);
        return wrapped;
    }

    /** Hands {@code paths} to the {@code postgres} OS user when we are root (a server needs to own its files). */
    static void ownForServer(Path... paths) {
        if (!runningAsRoot()) {
            return;
        }
        try {
            UserPrincipalLookupService lookup = paths[0].getFileSystem().getUserPrincipalLookupService();
            GroupPrincipal group = lookup.lookupPrincipalByGroupName(OS_USER);
            for (Path path : paths) {
                Files.setOwner(path, lookup.lookupPrincipalByName(OS_USER));
                Files.getFileAttributeView(path, PosixFileAttributeView.class).setGroup(group);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not give " + Arrays.toString(paths) + " to the OS user "
                    + OS_USER + " (PostgreSQL does not run as root; is the postgresql package installed?)", e);
        }
    }

    /**
     * Runs a short command to its end and returns its output.
     *
     * @param home the HOME of the command (tools write .pgpass-style paths under it), or null to keep ours
     * @throws IllegalStateException with the command's output when it fails or takes over 60 s
     */
    static String run(List<String> command, Path home) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            if (home != null) {
                pb.environment().put("HOME", home.toString());
            }
            pb.environment().remove("PGPASSWORD");
            Process process = pb.start();
            ProcessReaper.register(process);
            try {
                String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("timed out: " + String.join(" ", command));
                }
                if (process.exitValue() != 0) {
                    throw new IllegalStateException(String.join(" ", command) + " exited with "
                            + process.exitValue() + ":\n" + output.strip());
                }
                return output;
            } finally {
                ProcessReaper.killAndWait(process);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + command.get(0) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command.get(0), e);
        }
    }

    static void write(Path file, String text) {
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file, e);
        }
    }

    static Path createTempDir(String prefix) {
        try {
            Path dir = Files.createTempDirectory(prefix);
            ownForServer(dir);
            ProcessReaper.registerDirectory(dir);
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a temp dir", e);
        }
    }
}
