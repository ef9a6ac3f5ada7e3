package dev.dlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Starts other JVMs on the test class path, e.g. to run lock holders in separate processes that a
 * test can kill with SIGKILL. Children still alive when the test JVM exits are killed by a shutdown
 * hook.
 */
public final class JavaProcesses {

    private static final Pattern RELEASE_VERSION = Pattern.compile("^JAVA_VERSION=\"?([^\"\\s]+)\"?", Pattern.MULTILINE);
    private static final Pattern VERSION_OUTPUT = Pattern.compile("version \"([^\"]+)\"");
    private static final List<Path> JDK_ROOTS = List.of(Path.of("/usr/lib/jvm"), Path.of("/opt/java"));

    /**
     * Options for a short-lived JVM on a small, loaded machine: the quick compiler only and the
     * smallest collector, so that it starts and gets to work on less CPU (a worker that connects to
     * Redis and takes a lock: about 10 s instead of 17 s at a load of 30 on two cores).
     */
    public static final List<String> STARTUP_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    private JavaProcesses() {}

    /**
     * Starts {@code java -cp <java.class.path> mainClass args...} with the running JVM's java
     * executable and the {@linkplain #STARTUP_OPTIONS options of a short-lived JVM}.
     *
     * @param mainClass class with a {@code public static void main(String[])}, on this JVM's class path
     * @param args      program arguments
     * @return the started process
     * @see #start(Path, List, Class, List)
     */
    public static JavaProcess start(Class<?> mainClass, List<String> args) {
        return start(currentJava(), STARTUP_OPTIONS, mainClass, args);
    }

    /**
     * Starts {@code javaExecutable -cp <java.class.path of this JVM> jvmArgs... mainClass args...}, with
     * the {@linkplain StartupArchive startup archive} of that class path.
     * stdout and stderr are redirected to a new temp log file; stdin is empty. Returns as soon as the
     * process is started, not when {@code main} runs.
     *
     * @param javaExecutable path to a {@code java} binary, e.g. from {@link #findJava(int)}
     * @param jvmArgs options placed before the main class, e.g. {@code -Xmx64m}
     * @param mainClass class with a {@code public static void main(String[])}, on this JVM's class path
     * @param args program arguments
     * @return the started process
     * @throws UncheckedIOException if the process or log file cannot be created
     */
    public static JavaProcess start(Path javaExecutable, List<String> jvmArgs, Class<?> mainClass, List<String> args) {
        return start(List.of(), javaExecutable, jvmArgs, mainClass, args);
    }

    /**
     * Starts {@code mainClass} as {@link #start(Class, List)} does, under {@code wrapper}: a command
     * that runs the rest of its command line in another setting and execs it, such as
     * {@link NetworkNamespace#wrapper()} ({@code ip netns exec NAME}), so that the process's pid is
     * the JVM's.
     *
     * @param wrapper the command's words before {@code java}
     * @param mainClass class with a {@code public static void main(String[])}, on this JVM's class path
     * @param args program arguments
     * @return the started process
     */
    public static JavaProcess startUnder(List<String> wrapper, Class<?> mainClass, List<String> args) {
        return start(wrapper, currentJava(), STARTUP_OPTIONS, mainClass, args);
    }

    private static JavaProcess start(List<String> wrapper, Path javaExecutable, List<String> jvmArgs, Class<?> mainClass,
                                     List<String> args) {
        // a class path of the caller's own (a later -cp wins) is run as given: a directory in it, which the
        // archive's class path runs as a jar, would stop a JVM writing the archive when it exits
        boolean ownClassPath = jvmArgs.stream().anyMatch(arg -> arg.equals("-cp") || arg.equals("-classpath")
                || arg.equals("--class-path"));
        StartupArchive.Launch launch = ownClassPath ? StartupArchive.none(System.getProperty("java.class.path"))
                : StartupArchive.on(javaExecutable, System.getProperty("java.class.path"));
        List<String> cmd = new ArrayList<>(wrapper);
        cmd.add(javaExecutable.toString());
        cmd.addAll(launch.options());
        cmd.addAll(jvmArgs);
        cmd.add(mainClass.getName());
        cmd.addAll(args);
        try {
            Path log = Files.createTempFile("dlock-" + mainClass.getSimpleName() + "-", ".log");
            log.toFile().deleteOnExit();
            Process process = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
            launch.started(process);
            ProcessReaper.register(process);
            return new JavaProcess(process, log);
        } catch (IOException e) {
            launch.notStarted();
            throw new UncheckedIOException("could not start " + javaExecutable + " " + mainClass.getName(), e);
        }
    }

    /**
     * Finds a {@code java} executable whose feature version (the 21 in 21.0.4) is at least {@code
     * minFeatureVersion}, in this order: the running JVM; {@code $JDK21_HOME/bin/java}; {@code
     * $JAVA21_HOME/bin/java}; JDKs under {@code /usr/lib/jvm} and {@code /opt/java}, highest version
     * first. A JDK's version is read from its {@code release} file ({@code JAVA_VERSION="25.0.1"});
     * only for the environment variables, a missing {@code release} file falls back to running {@code
     * java -version}.
     *
     * @param minFeatureVersion the lowest acceptable feature version, e.g. 21
     * @return the executable, or empty when no installed JDK qualifies
     */
    public static Optional<Path> findJava(int minFeatureVersion) {
        if (Runtime.version().feature() >= minFeatureVersion) {
            return Optional.of(currentJava());
        }
        for (String env : List.of("JDK21_HOME", "JAVA21_HOME")) {
            String home = System.getenv(env);
            if (home == null || home.isBlank()) {
                continue;
            }
            Path java = javaIn(Path.of(home));
            OptionalInt version = releaseVersion(Path.of(home));
            if (version.isEmpty() && Files.isExecutable(java)) {
                version = runtimeVersion(java);
            }
            if (Files.isExecutable(java) && version.isPresent() && version.getAsInt() >= minFeatureVersion) {
                return Optional.of(java);
            }
        }
        Map<Path, Integer> candidates = new LinkedHashMap<>();
        for (Path root : JDK_ROOTS) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (DirectoryStream<Path> homes = Files.newDirectoryStream(root)) {
                for (Path home : homes) {
                    OptionalInt version = releaseVersion(home);
                    Path java = javaIn(home);
                    if (version.isPresent() && version.getAsInt() >= minFeatureVersion && Files.isExecutable(java)) {
                        // Symlinked aliases (java-1.17.0-openjdk-amd64 -> java-17-openjdk-amd64) count once.
                        candidates.putIfAbsent(realPath(java), version.getAsInt());
                    }
                }
            } catch (IOException | SecurityException e) {
                // unreadable directory: not a place we can use JDKs from
            }
        }
        return candidates.entrySet().stream()
                .sorted(Map.Entry.<Path, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .map(Map.Entry::getKey)
                .findFirst();
    }

    private static Path currentJava() {
        return javaIn(Path.of(System.getProperty("java.home")));
    }

    private static Path javaIn(Path home) {
        return home.resolve("bin").resolve("java");
    }

    private static Path realPath(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            return path.toAbsolutePath().normalize();
        }
    }

    private static OptionalInt releaseVersion(Path home) {
        Path release = home.resolve("release");
        try {
            if (!Files.isRegularFile(release)) {
                return OptionalInt.empty();
            }
            Matcher m = RELEASE_VERSION.matcher(Files.readString(release, StandardCharsets.ISO_8859_1));
            return m.find() ? featureOf(m.group(1)) : OptionalInt.empty();
        } catch (IOException e) {
            return OptionalInt.empty();
        }
    }

    private static OptionalInt runtimeVersion(Path java) {
        try {
            Process p = new ProcessBuilder(java.toString(), "-version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return OptionalInt.empty();
            }
            Matcher m = VERSION_OUTPUT.matcher(out);
            return m.find() ? featureOf(m.group(1)) : OptionalInt.empty();
        } catch (IOException e) {
            return OptionalInt.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OptionalInt.empty();
        }
    }

    /** "25.0.1" -> 25, "21" -> 21, "1.8.0_392" -> 8 (pre-9 scheme). */
    static OptionalInt featureOf(String version) {
        Matcher m = Pattern.compile("^(\\d+)(?:\\.(\\d+))?").matcher(version);
        if (!m.find()) {
            return OptionalInt.empty();
        }
        int first = Integer.parseInt(m.group(1));
        if (first == 1 && m.group(2) != null) {
            return OptionalInt.of(Integer.parseInt(m.group(2)));
        }
        return OptionalInt.of(first);
    }
}
