package dev.dlock.testing;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * A class-data-sharing archive for the JVMs a test starts on its own class path (a dlock command, a
 * fault campaign's client, a ZooKeeper server): the classes the first such JVM loaded are mapped from
 * the archive by the next ones instead of being read, verified and linked again, which takes about
 * 40 % of the CPU a short dlock command uses (1.0 s instead of 1.7 s for {@code dlock status}) and,
 * on two cores running hundreds of them, minutes of the suite.
 *
 * <p>The JDK archives classes from jar files only and refuses a class path with a non-empty
 * directory in it, so each directory of the class path ({@code target/classes},
 * {@code target/test-classes}) is run as a jar of its files, made once per content. The first
 * launches on a class path write the archive when they exit ({@code -XX:ArchiveClassesAtExit}); the
 * others use it once it is there, and a launch that cannot (another JDK, a jar changed since) runs as
 * it would without. The JDK's notes about the archive are turned off: they go to standard output,
 * which the tests read.
 */
public final class StartupArchive {

    private static final Path ROOT = Path.of(System.getProperty("java.io.tmpdir"),
            "dlock-startup-archives-" + System.getProperty("user.name"));
    private static final List<String> QUIET = List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off");
    /** Class paths whose archive this JVM is having written by a launch still running. */
    private static final Map<Path, Boolean> BEING_WRITTEN = new ConcurrentHashMap<>();
    private static final Map<Path, Integer> WRITES = new ConcurrentHashMap<>();
    private static final int WRITES_PER_CLASS_PATH = 4;
    private static final Map<String, String> JARRED = new ConcurrentHashMap<>();

    private StartupArchive() {}

    /**
     * The options that run {@code java} on {@code classPath} with the archive: {@code -cp} and its
     * class path included. Pass the started process to {@link Launch#started(Process)}.
     *
     * @param java      the {@code java} executable (an archive belongs to one JDK)
     * @param classPath the class path, as in {@code java.class.path}
     * @return the options and what to do once the process is started
     */
    public static Launch on(Path java, String classPath) {
        return launch(java, classPath, true);
    }

    /**
     * As {@link #on}, for a command run where its process cannot be seen (in a shell, in a terminal):
     * the archive when it is there, and none written.
     *
     * @return the JVM options, {@code -cp} and the class path last
     */
    public static List<String> ifWritten(Path java, String classPath) {
        return launch(java, classPath, false).options();
    }

    /** A launch on {@code classPath} as it is, without an archive. */
    public static Launch none(String classPath) {
        return new Launch(List.of("-cp", classPath), null, null);
    }

    private static Launch launch(Path java, String classPath, boolean mayWrite) {
        String jarred;
        try {
            jarred = JARRED.computeIfAbsent(classPath, StartupArchive::withDirectoriesAsJars);
        } catch (UncheckedIOException e) {
            return none(classPath);
        }
        Path archive = ROOT.resolve(digest(java.toAbsolutePath() + "\n" + jarred) + ".jsa");
        List<String> options = new ArrayList<>(QUIET);
        Path writing = null;
        if (mayWrite && mayWrite(archive)) {
            writing = ROOT.resolve(archive.getFileName() + "." + ProcessHandle.current().pid() + ".part");
            options.add("-XX:ArchiveClassesAtExit=" + writing);
        } else if (Files.isRegularFile(archive)) {
            options.add("-XX:SharedArchiveFile=" + archive);
        }
        options.add("-cp");
        options.add(jarred);
        return new Launch(List.copyOf(options), writing, archive);
    }

    /**
     * Whether this launch writes the archive: one at a time, and the first few launches on a class
     * path, not only the first, since the first is often a command that stops early (a usage error,
     * a refused option) and loads a tenth of the classes of one that does its work; the largest
     * archive is kept.
     */
    private static boolean mayWrite(Path archive) {
        if (BEING_WRITTEN.putIfAbsent(archive, Boolean.TRUE) != null) {
            return false;
        }
        if (WRITES.merge(archive, 1, Integer::sum) > WRITES_PER_CLASS_PATH) {
            BEING_WRITTEN.remove(archive);
            return false;
        }
        return true;
    }

    /** The options of one launch; {@link #started} once its process runs. */
    public static final class Launch {
        private final List<String> options;
        private final Path writing;
        private final Path archive;

        private Launch(List<String> options, Path writing, Path archive) {
            this.options = options;
            this.writing = writing;
            this.archive = archive;
        }

        /** The JVM options, {@code -cp} and the class path last. */
        public List<String> options() {
            return options;
        }

        /**
         * The launch that writes the archive puts it in place when its process exits, so that no
         * launch maps half of one; a process that never started, or was killed before writing it,
         * leaves the next launch to write it.
         */
        public void started(Process process) {
            if (writing == null) {
                return;
            }
            process.onExit().whenComplete((exited, error) -> {
                try {
                    if (Files.isRegularFile(writing) && Files.size(writing) > sizeOf(archive)) {
                        Files.move(writing, archive, StandardCopyOption.ATOMIC_MOVE);
                    }
                    Files.deleteIfExists(writing);
                } catch (IOException e) {
                    // another launch's archive is in place, or none will be: launches run without
                } finally {
                    BEING_WRITTEN.remove(archive);
                }
            });
        }

        /** The process could not be started: the next launch writes the archive. */
        public void notStarted() {
            if (writing != null) {
                BEING_WRITTEN.remove(archive);
            }
        }
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0;
        }
    }

    private static String withDirectoriesAsJars(String classPath) {
        List<String> entries = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            Path path = Path.of(entry);
            entries.add(Files.isDirectory(path) ? jarOf(path).toString() : entry);
        }
        return String.join(File.pathSeparator, entries);
    }

    /**
     * A jar of the directory's files, named by its content (each file's path, size and modification
     * time), so that a directory compiled again gets a new jar and an unchanged one keeps its jar,
     * whose own modification time an archive records.
     */
    private static Path jarOf(Path directory) {
        try {
            List<Path> files;
            try (Stream<Path> walk = Files.walk(directory)) {
                files = walk.filter(path -> !path.equals(directory)).sorted().toList();
            }
            StringBuilder listing = new StringBuilder(directory.toAbsolutePath().toString());
            for (Path file : files) {
                if (Files.isDirectory(file)) {
                    continue;
                }
                BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
                listing.append('\n').append(directory.relativize(file)).append(' ').append(attributes.size())
                        .append(' ').append(attributes.lastModifiedTime().toMillis());
            }
            Files.createDirectories(ROOT);
            Path jar = ROOT.resolve(digest(listing.toString()) + ".jar");
            if (Files.isRegularFile(jar)) {
                return jar;
            }
            Path part = Files.createTempFile(ROOT, "classes-", ".jar.part");
            try (OutputStream out = Files.newOutputStream(part); JarOutputStream jarOut = new JarOutputStream(out)) {
                for (Path file : files) {
                    // directories get their entries too, so that a resource lookup of one finds it as before
                    String name = directory.relativize(file).toString().replace(File.separatorChar, '/');
                    boolean isDirectory = Files.isDirectory(file);
                    jarOut.putNextEntry(new JarEntry(isDirectory ? name + "/" : name));
                    if (!isDirectory) {
                        Files.copy(file, jarOut);
                    }
                    jarOut.closeEntry();
                }
            }
            try {
                // a link, not a rename: a jar another JVM put in place first is never replaced under an archive
                Files.createLink(jar, part);
            } catch (FileAlreadyExistsException raced) {
                // the other JVM's jar has the same content
            } finally {
                Files.delete(part);
            }
            return jar;
        } catch (IOException e) {
            throw new UncheckedIOException("could not make a jar of " + directory, e);
        }
    }

    private static String digest(String text) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
