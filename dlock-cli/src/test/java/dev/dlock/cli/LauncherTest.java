package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dlock.cli.common.ExitCodes;
import dev.dlock.cli.store.RedisOptions;
import dev.dlock.testing.ProcessStarts;
import dev.dlock.testing.RedisServers;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./dlock} launcher as a user runs it, in a copy of the checkout's layout: the launcher
 * at the root and a runnable {@code dlock-cli/target/dlock-cli.jar} (built here from the test class
 * path, so no Maven build runs), against a real Redis. The first run after a build makes a class
 * data sharing archive of what every command loads (from a training run), and the later ones use
 * it; an archive that is stale or broken must never break a run.
 */
class LauncherTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private static final Path LAUNCHER = Path.of("..", "dlock").toAbsolutePath().normalize();

    @TempDir
    static Path checkout;

    private static Path jar;

    @BeforeAll
    static void layOutACheckout() throws IOException {
        assumeTrue(Files.isExecutable(LAUNCHER) && new File("/bin/bash").canExecute(), "needs bash and ../dlock");
        Files.copy(LAUNCHER, checkout.resolve("dlock"));
        checkout.resolve("dlock").toFile().setExecutable(true);
        Path target = Files.createDirectories(checkout.resolve("dlock-cli").resolve("target"));
        jar = target.resolve("dlock-cli.jar");
        runnableJar(jar);
    }

    @Test
    void theFirstRunArchivesEveryCommandsClassesEvenWhenItFindsNoRedis() throws Exception {
        deleteSharingFiles();
        Run first = launchAt("redis://127.0.0.1:1", List.of(), "status", "job");
        assertThat(first.exitCode()).as(first.toString()).isEqualTo(ExitCodes.REDIS_UNAVAILABLE);
        assertThat(sharingFiles()).as("the training run's class list and the archive dumped from it")
                .map(file -> file.getFileName().toString())
                .satisfiesExactlyInAnyOrder(name -> assertThat(name).endsWith(".classes"),
                        name -> assertThat(name).endsWith(".jsa"));
        assertThat(LauncherTest.isArchive(archive())).isTrue();

        Path classLog = checkout.resolve("classes.log");
        List<String> logged = List.of("JAVA_TOOL_OPTIONS=-Xlog:class+load:file=" + classLog);
        Run status = launch(logged, "status", "job");
        assertThat(status.stdout()).as(status.toString()).startsWith("lock 'job': free");
        assertAllFromTheArchive(classLog, "dev.dlock.cli.inspect.StatusCommand", "picocli.CommandLine",
                "io.lettuce.core.RedisClient", "io.lettuce.core.protocol.CommandHandler");
        Run exec = launch(logged, "exec", "job", "--", "true");
        assertThat(exec.exitCode()).as(exec.toString()).isZero();
        assertAllFromTheArchive(classLog, "dev.dlock.cli.exec.ExecCommand", "dev.dlock.cli.exec.ChildProcess",
                "io.lettuce.core.protocol.CommandHandler");
        Run list = launch(logged, "list");
        assertThat(list.exitCode()).as(list.toString()).isZero();
        assertAllFromTheArchive(classLog, "dev.dlock.cli.inspect.ListCommand", "io.lettuce.core.protocol.CommandHandler");
        assertThat(sharingFiles()).hasSize(2);
    }

    @Test
    void aBrokenOrStaleArchiveIsNeitherUsedNorHarmful() throws Exception {
        deleteSharingFiles();
        assertFreeLockShown(launch("status", "job"));
        Path archive = archive();
        assertThat(LauncherTest.isArchive(archive)).isTrue();

        // an archive that is no archive (the launcher only ever renames a finished dump into place)
        archive.toFile().setWritable(true);
        Files.write(archive, new byte[64 * 1024]);
        Files.setLastModifiedTime(archive, FileTime.from(Instant.now().plusSeconds(5)));
        assertFreeLockShown(launch("status", "job"));
        assertThat(LauncherTest.isArchive(archive)).as("made again").isTrue();

        // the jar rebuilt after the list and the archive were made: both made again
        for (Path file : sharingFiles()) {
            Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(60)));
        }
        Files.setLastModifiedTime(jar, FileTime.from(Instant.now()));
        assertFreeLockShown(launch("status", "job"));
        assertThat(sharingFiles()).hasSize(2);
        assertThat(LauncherTest.isArchive(archive)).isTrue();
        assertThat(Files.getLastModifiedTime(archive).toInstant()).isAfter(Files.getLastModifiedTime(jar).toInstant());
    }

    @Test
    void errorsAndExitCodesAreTheCommandsOwn() {
        Run usage = launch("status");
        assertThat(usage.exitCode()).as(usage.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(usage.stderr()).startsWith("dlock: ").doesNotContain("[warning]");
        Run version = launch("--version");
        assertThat(version.exitCode()).as(version.toString()).isZero();
        assertThat(version.stdout()).startsWith("dlock ");
    }

    /** The run logged to {@code classLog} loaded these classes, and all but a few of the jar's, from the archive. */
    private static void assertAllFromTheArchive(Path classLog, String... classes) throws IOException {
        String log = Files.readString(classLog);
        for (String name : classes) {
            assertThat(log).containsPattern(java.util.regex.Pattern.quote(name) + " source: shared objects file");
        }
        // a few classes load only on a path that depends on timing (Lettuce's DemandAware$Sink); a
        // list from a run that never reached Redis leaves hundreds out
        assertThat(log.lines().filter(line -> line.contains("source: jar:") || line.contains("source: file:")).toList())
                .as("classes read from the jar, not the archive").hasSizeLessThanOrEqualTo(10);
    }

    private static void assertFreeLockShown(Run run) {
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.stdout()).startsWith("lock 'job': free");
        assertThat(run.stderr()).as("nothing but the command's own output").isEmpty();
    }

    private Run launch(String... args) {
        return launch(List.of(), args);
    }

    private Run launch(List<String> env, String... args) {
        return launchAt(redis.server().uri(), env, args);
    }

    /** {@code ./dlock --redis URI ARGS} in the copied checkout, with the test JVM's java first on the PATH. */
    private Run launchAt(String uri, List<String> env, String... args) {
        List<String> command = new java.util.ArrayList<>(List.of(checkout.resolve("dlock").toString(),
                "--redis", uri));
        command.addAll(List.of(args));
        try {
            Path out = Files.createTempFile(checkout, "out-", ".txt");
            Path err = Files.createTempFile(checkout, "err-", ".txt");
            ProcessBuilder builder = new ProcessBuilder(command).directory(checkout.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(out.toFile()).redirectError(err.toFile());
            builder.environment().remove(RedisOptions.URL_ENV);
            builder.environment().remove("JAVA_TOOL_OPTIONS");
            builder.environment().putAll(Cli.LOADED_MACHINE);
            builder.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin")
                    + File.pathSeparator + System.getenv("PATH"));
            for (String variable : env) {
                int equals = variable.indexOf('=');
                builder.environment().put(variable.substring(0, equals), variable.substring(equals + 1));
            }
            // the launcher was copied here: a child another test class forked meanwhile may hold it open
            Process process = ProcessStarts.start(builder);
            if (!process.waitFor(Cli.BOUND.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(command + " still running after " + Cli.BOUND);
            }
            String stderr = Files.readString(err).lines()
                    .filter(line -> !line.startsWith("Picked up JAVA_TOOL_OPTIONS")).reduce("", (a, b) -> a + b + "\n");
            return new Run(process.exitValue(), Files.readString(out), stderr);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private record Run(int exitCode, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr;
        }
    }

    /** The class lists and archives of the launcher's class data sharing, finished or not. */
    private static List<Path> sharingFiles() throws IOException {
        try (Stream<Path> files = Files.list(jar.getParent())) {
            return files.filter(file -> file.getFileName().toString().matches(".*\\.(jsa|classes)(\\..*)?")).sorted()
                    .toList();
        }
    }

    private static void deleteSharingFiles() throws IOException {
        for (Path file : sharingFiles()) {
            Files.delete(file);
        }
    }

    /** The one archive (its name has the JVM's version in it). */
    private static Path archive() throws IOException {
        return sharingFiles().stream().filter(file -> file.getFileName().toString().endsWith(".jsa")).findFirst()
                .orElseThrow(() -> new AssertionError("no archive"));
    }

    /** A static archive: it starts with the JVM's magic number for one (a dynamic one has another). */
    private static boolean isArchive(Path file) throws IOException {
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(4);
        }
        if (head.length < 4) {
            return false;
        }
        int magic = (head[0] & 0xff) | (head[1] & 0xff) << 8 | (head[2] & 0xff) << 16 | (head[3] & 0xff) << 24;
        return magic == 0xf00baba2;
    }

    /**
     * What the shade plugin makes of this module, from the test class path: every class and
     * resource of the main class path in one jar (the first of duplicates wins; signatures left
     * out), with {@code dev.dlock.cli.Main} as its main class.
     */
    private static void runnableJar(Path jar) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Main.class.getName());
        Set<String> written = new HashSet<>();
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            written.add(JarFile.MANIFEST_NAME);
            for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
                Path path = Path.of(entry);
                if (path.toString().contains("test-classes")) {
                    continue;
                }
                if (Files.isDirectory(path)) {
                    try (Stream<Path> files = Files.walk(path)) {
                        for (Path file : files.filter(Files::isRegularFile).toList()) {
                            copy(out, written, path.relativize(file).toString().replace(File.separatorChar, '/'),
                                    Files.newInputStream(file));
                        }
                    }
                } else if (Files.isRegularFile(path)) {
                    try (JarFile source = new JarFile(path.toFile())) {
                        for (JarEntry file : source.stream().filter(e -> !e.isDirectory()).toList()) {
                            copy(out, written, file.getName(), source.getInputStream(file));
                        }
                    }
                }
            }
        }
    }

    private static void copy(JarOutputStream out, Set<String> written, String name, InputStream content)
            throws IOException {
        try (InputStream in = content) {
            String upper = name.toUpperCase(java.util.Locale.ROOT);
            boolean signature = upper.startsWith("META-INF/") && (upper.endsWith(".SF") || upper.endsWith(".DSA")
                    || upper.endsWith(".RSA"));
            if (signature || upper.equals("META-INF/MANIFEST.MF") || upper.endsWith("MODULE-INFO.CLASS")
                    || !written.add(name)) {
                return;
            }
            out.putNextEntry(new JarEntry(name));
            in.transferTo(out);
            out.closeEntry();
        }
    }
}
