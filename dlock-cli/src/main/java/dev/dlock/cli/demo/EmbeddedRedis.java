package dev.dlock.cli.demo;

import dev.dlock.testing.ProcessStarts;
import dev.dlock.testing.RedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A redis-server of the demo's own on a free loopback port, keeping nothing on disk: the one on
 * the PATH, else the binary bundled from {@code org.signal:embedded-redis} (Redis 7.0.15). Started,
 * awaited and stopped by the test harness's {@link RedisServer}, whose shutdown hook also stops it
 * (and deletes its files) when the demo is interrupted.
 */
final class EmbeddedRedis implements AutoCloseable {

    private static final Pattern VERSION = Pattern.compile("v=(\\S+)");

    private final RedisServer server;
    private final Path extracted;
    private final String description;

    private EmbeddedRedis(RedisServer server, Path extracted, String description) {
        this.server = server;
        this.extracted = extracted;
        this.description = description;
    }

    /** @throws IllegalStateException no redis-server could be started */
    static EmbeddedRedis start() {
        Path onPath = findOnPath("redis-server");
        return onPath != null ? start(onPath, null, "from " + onPath) : startBundled();
    }

    /** The bundled binary even when the PATH has one: how a machine without redis-server fares. */
    static EmbeddedRedis startBundled() {
        Path dir = createTempDir();
        // deleted by close(), or on exit when the demo is interrupted (registered before its binary,
        // so that the binary goes first)
        dir.toFile().deleteOnExit();
        try {
            Path binary = extractBundled(dir);
            binary.toFile().deleteOnExit();
            return start(binary, dir, "bundled");
        } catch (IOException e) {
            deleteQuietly(dir);
            throw new IllegalStateException("could not start a redis-server of its own: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            deleteQuietly(dir);
            throw e;
        }
    }

    private static EmbeddedRedis start(Path binary, Path extracted, String origin) {
        String version = versionOf(binary);
        RedisServer server;
        try {
            server = RedisServer.start(binary);
        } catch (UncheckedIOException e) {
            throw new IllegalStateException("could not start a redis-server of its own: " + e.getMessage(), e);
        }
        return new EmbeddedRedis(server, extracted,
                "redis-server " + version + " (" + origin + ") on " + server.host() + ":" + server.port());
    }

    String url() {
        return server.uri();
    }

    /** e.g. {@code redis-server 7.0.15 (bundled) on 127.0.0.1:40123}. */
    String description() {
        return description;
    }

    @Override
    public void close() {
        server.close();
        if (extracted != null) {
            deleteQuietly(extracted);
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
            // just unpacked: a child forked meanwhile may still hold it open for writing
            Process version = ProcessStarts.start(new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true));
            String out = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            version.waitFor(5, TimeUnit.SECONDS);
            Matcher m = VERSION.matcher(out);
            return m.find() ? m.group(1) : "(unknown version)";
        } catch (IOException e) {
            throw new IllegalStateException("could not start a redis-server of its own: cannot run " + binary, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(unknown version)";
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
