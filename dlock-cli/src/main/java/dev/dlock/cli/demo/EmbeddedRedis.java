package dev.dlock.cli.demo;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A redis-server of the demo's own on a free loopback port, keeping nothing on disk: the one on
 * the PATH, else the binary bundled from {@code org.signal:embedded-redis} (Redis 7.0.15). Stopped
 * (SIGTERM, then SIGKILL) and its files deleted by {@link #close()}, which a shutdown hook also
 * runs when the demo is interrupted.
 */
final class EmbeddedRedis implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(10);
    private static final Pattern VERSION = Pattern.compile("v=(\\S+)");

    private final Process process;
    private final Path dir;
    private final int port;
    private final String description;
    private final Thread stopOnExit;

    private EmbeddedRedis(Process process, Path dir, int port, String description) {
        this.process = process;
        this.dir = dir;
        this.port = port;
        this.description = description;
        this.stopOnExit = new Thread(this::stop, "dlock-demo-redis-stop");
        Runtime.getRuntime().addShutdownHook(stopOnExit);
    }

    /** @throws IllegalStateException no redis-server could be started */
    static EmbeddedRedis start() {
        return start(findOnPath("redis-server"));
    }

    /** The bundled binary even when the PATH has one: how a machine without redis-server fares. */
    static EmbeddedRedis startBundled() {
        return start(null);
    }

    private static EmbeddedRedis start(Path onPath) {
        Path dir = createTempDir();
        try {
            Path binary = onPath != null ? onPath : extractBundled(dir);
            String origin = onPath != null ? "from " + onPath : "bundled";
            String version = versionOf(binary);
            int port = freePort();
            Process process = new ProcessBuilder(binary.toString(), "--port", Integer.toString(port),
                    "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
                    "--dir", dir.toString(), "--logfile", dir.resolve("redis.log").toString())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.out").toFile())
                    .start();
            EmbeddedRedis redis = new EmbeddedRedis(process, dir, port,
                    "redis-server " + version + " (" + origin + ") on 127.0.0.1:" + port);
            redis.awaitReady();
            return redis;
        } catch (IOException e) {
            deleteQuietly(dir);
            throw new IllegalStateException("could not start a redis-server of its own: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            deleteQuietly(dir);
            throw e;
        }
    }

    String url() {
        return "redis://127.0.0.1:" + port;
    }

    /** e.g. {@code redis-server 7.0.15 (bundled) on 127.0.0.1:40123}. */
    String description() {
        return description;
    }

    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        } catch (IllegalStateException e) {
            // already shutting down: the hook runs stop() again, which is harmless
        }
    }

    private synchronized void stop() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        deleteQuietly(dir);
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (!process.isAlive()) {
                String log = logTail();
                stop();
                throw new IllegalStateException("redis-server exited with code " + process.exitValue() + ": " + log);
            }
            if (RedisProbe.answersPing("127.0.0.1", port, Duration.ofMillis(200))) {
                return;
            }
            try {
                Thread.sleep(20); // polling a starting process: nothing to wait on but the port
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stop();
                throw new IllegalStateException("interrupted while starting redis-server", e);
            }
        }
        stop();
        throw new IllegalStateException("redis-server did not answer on port " + port + " within "
                + START_TIMEOUT.toSeconds() + " s");
    }

    private String logTail() {
        try {
            List<String> lines = new ArrayList<>(Files.readAllLines(dir.resolve("redis.out")));
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    private static Path findOnPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String directory : path.split(java.io.File.pathSeparator)) {
            if (directory.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(directory, program);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** The resource name the embedded-redis jar gives this platform's binary. */
    static String bundledResource() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String platform;
        if (os.contains("linux")) {
            platform = "linux";
        } else if (os.contains("mac") || os.contains("darwin")) {
            platform = "darwin";
        } else {
            throw new IllegalStateException("no bundled redis-server for " + os + "; install redis-server or set REDIS_URL");
        }
        String cpu = switch (arch) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            case "x86", "i386", "i686" -> "386";
            default -> throw new IllegalStateException("no bundled redis-server for " + os + " on " + arch
                    + "; install redis-server or set REDIS_URL");
        };
        return "redis-server-7.0.15-" + platform + "-" + cpu;
    }

    private static Path extractBundled(Path dir) throws IOException {
        String resource = bundledResource();
        Path binary = dir.resolve("redis-server");
        try (InputStream in = EmbeddedRedis.class.getResourceAsStream("/" + resource)) {
            if (in == null) {
                throw new IllegalStateException("the bundled redis-server (" + resource + ") is missing from "
                        + "the class path; install redis-server or set REDIS_URL");
            }
            Files.copy(in, binary, StandardCopyOption.REPLACE_EXISTING);
        }
        if (!binary.toFile().setExecutable(true, true)) {
            throw new IOException("cannot make " + binary + " executable");
        }
        return binary;
    }

    private static String versionOf(Path binary) {
        try {
            Process version = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            String out = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            version.waitFor(5, TimeUnit.SECONDS);
            Matcher m = VERSION.matcher(out);
            return m.find() ? m.group(1) : "(unknown version)";
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + binary, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(unknown version)";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }

    private static Path createTempDir() {
        try {
            return Files.createTempDirectory("dlock-demo-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temp directory for redis-server", e);
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a temp directory left behind is harmless
        }
    }
}
