package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.dlock.testing.RedisServers;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's meters: scraped over real HTTP from a running demo's {@code --metrics-port}, and
 * compared with the sale and with the lock-wait table of its summary.
 */
class DemoMetricsTest {

    /** A server per test: a demo that is killed mid-sale leaves its keys behind. */
    @RegisterExtension
    final RedisServers redis = RedisServers.standalone();

    private static final Pattern SERVING = Pattern.compile("metrics: serving (http://127\\.0\\.0\\.1:(\\d+)/metrics) ");
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{([^}]*)})? (\\S+)$",
            Pattern.MULTILINE);
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");
    private static final String LATENCY = "([\\d.]+ (?:ms|s))";
    private static final Pattern ACQUIRED_ROW = Pattern.compile("^  reentrant\\s+acquired\\s+([\\d,]+)\\s+" + LATENCY
            + "\\s+" + LATENCY + "\\s+" + LATENCY + "\\s+" + LATENCY + "\\s*$", Pattern.MULTILINE);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void theDlockMetersAreServedAsPrometheusTextWhileTheSaleRuns() {
        // every purchase pauses 1 s under the lock: a sale that is still going when the test ends it
        try (Cli.Running demo = Cli.start("--redis", redis.server().uri(), "demo", "--mode", "lock",
                "--stock", "1000", "--buyers", "1000", "--clients", "1", "--threads", "1", "--pause", "1s",
                "--metrics-port", "0")) {
            String url = awaitServing(demo);

            Scrape scrape = await().atMost(Duration.ofSeconds(60)).until(() -> scrape(url),
                    s -> s.find("dlock_acquire_wait_seconds_count", "kind", "reentrant", "outcome", "acquired")
                            .orElse(0) >= 2);

            assertThat(demo.process().isAlive()).as("the demo, while scraped").isTrue();
            assertThat(demo.stdout()).as("no summary yet: the sale goes on").doesNotContain("buyers served");
            assertThat(scrape.contentType()).startsWith("text/plain; version=0.0.4");
            assertThat(scrape.body()).contains("# TYPE dlock_acquire_wait_seconds histogram",
                    "dlock_acquire_wait_seconds_bucket{kind=\"reentrant\",outcome=\"acquired\",le=\"+Inf\"}");
            assertThat(scrape.value("dlock_locks_held")).as("one buyer at a time").isBetween(0.0, 1.0);
            assertThat(scrape.value("dlock_store_calls_seconds_count", "call", "acquire", "outcome", "ok"))
                    .isGreaterThanOrEqualTo(2);
            assertThat(scrape.value("dlock_renewals_total")).isGreaterThanOrEqualTo(0);
        }
    }

    @Test
    void withMetricsLingerTheMetersOfTheWholeSaleAreServedUntilEnterAndMatchTheSummary() throws IOException {
        int buyers = 200;
        try (Cli.Running demo = Cli.startWithInput("--redis", redis.server().uri(), "demo", "--mode", "lock",
                "--stock", "5", "--buyers", Integer.toString(buyers), "--clients", "2", "--threads", "2",
                "--metrics-port", "0", "--metrics-linger")) {
            String url = awaitServing(demo);
            await().atMost(Duration.ofSeconds(120)).until(() -> demo.stdout().contains("metrics: still serving " + url)
                    || !demo.process().isAlive());
            assertThat(demo.process().isAlive()).as(demo.stdout() + demo.stderr()).isTrue();

            Scrape scrape = scrape(url);
            double acquired = scrape.value("dlock_acquire_wait_seconds_count", "kind", "reentrant", "outcome", "acquired");
            assertThat(acquired).as("one acquisition per purchase attempt").isEqualTo(buyers);
            assertThat(scrape.value("dlock_acquire_wait_seconds_bucket", "kind", "reentrant", "outcome", "acquired",
                    "le", "+Inf")).isEqualTo(buyers);
            assertThat(scrape.value("dlock_hold_seconds_count", "kind", "reentrant", "ending", "released"))
                    .isEqualTo(buyers);
            assertThat(scrape.value("dlock_locks_held")).isZero();
            assertThat(scrape.value("dlock_waiters")).isZero();
            // the meters alerts read are there at zero
            assertThat(scrape.value("dlock_acquire_wait_seconds_count", "kind", "reentrant", "outcome", "timed_out")).isZero();
            assertThat(scrape.value("dlock_acquire_wait_seconds_count", "kind", "reentrant", "outcome", "error")).isZero();
            for (String cause : new String[] {"expired", "gone", "force_released", "backend_unreachable"}) {
                assertThat(scrape.value("dlock_losses_total", "kind", "reentrant", "cause", cause)).isZero();
            }
            assertThat(scrape.value("dlock_store_calls_seconds_count", "call", "acquire", "outcome", "error")).isZero();

            Matcher row = ACQUIRED_ROW.matcher(demo.stdout());
            assertThat(row.find()).as("the lock-wait row of the summary:\n" + demo.stdout()).isTrue();
            assertThat(demo.stdout()).contains("lock waits, from the meter dlock.acquire.wait");
            assertThat(Long.parseLong(row.group(1).replace(",", ""))).isEqualTo(buyers);
            double p50 = seconds(row.group(2));
            double p90 = seconds(row.group(3));
            double p99 = seconds(row.group(4));
            double max = seconds(row.group(5));
            assertThat(p50).isPositive().isLessThanOrEqualTo(p90);
            assertThat(p90).isLessThanOrEqualTo(p99);
            assertThat(p99).isLessThanOrEqualTo(max);
            double scrapedMax = scrape.value("dlock_acquire_wait_seconds_max", "kind", "reentrant", "outcome", "acquired");
            assertThat(max).as("the summary's max (3 digits shown) and the scraped one")
                    .isCloseTo(scrapedMax, within(Math.max(1e-5, scrapedMax / 100)));

            assertThat(get(url.replace("/metrics", "/")).statusCode()).isEqualTo(404);

            try (OutputStream stdin = demo.process().getOutputStream()) {
                stdin.write('\n');
            }
            Cli.Result result = demo.await(Duration.ofSeconds(30));
            assertThat(result.exitCode()).as(result.toString()).isZero();
            assertThatThrownBy(() -> get(url)).as("no longer served").isInstanceOf(ConnectException.class);
        }
    }

    /** Start-up: commands other than demo load no metrics class, and the demo no HTTP server unless asked. */
    @Test
    void metricsClassesAreLoadedByTheDemoAloneAndTheHttpServerOnlyWithAPort(@TempDir Path tmp) throws IOException {
        Path status = tmp.resolve("status.log");
        Path demo = tmp.resolve("demo.log");
        Cli.Result statusResult = Cli.start(List.of(), List.of("-Xlog:class+load=info:file=" + status), Map.of(),
                "--redis", redis.server().uri(), "status", "x").await(Duration.ofSeconds(60));
        Cli.Result demoResult = Cli.start(List.of(), List.of("-Xlog:class+load=info:file=" + demo), Map.of(),
                "--redis", redis.server().uri(), "demo", "--mode", "lock", "--buyers", "20").await(Duration.ofSeconds(60));
        assertThat(statusResult.exitCode()).as(statusResult.toString()).isZero();
        assertThat(demoResult.exitCode()).as(demoResult.toString()).isZero();

        String statusClasses = Files.readString(status);
        assertThat(statusClasses).contains(" dev.dlock.cli.inspect.StatusCommand ")
                .doesNotContain(" io.micrometer.", " io.prometheus.", " dev.dlock.micrometer.", " com.sun.net.httpserver.");
        String demoClasses = Files.readString(demo);
        assertThat(demoClasses).contains(" io.micrometer.prometheusmetrics.PrometheusMeterRegistry ")
                .doesNotContain(" com.sun.net.httpserver.", " dev.dlock.cli.demo.MetricsEndpoint ");
    }

    private static String awaitServing(Cli.Running demo) {
        await().atMost(Duration.ofSeconds(60)).until(() -> SERVING.matcher(demo.stdout()).find()
                || !demo.process().isAlive());
        Matcher serving = SERVING.matcher(demo.stdout());
        assertThat(serving.find()).as(demo.stdout() + demo.stderr()).isTrue();
        return serving.group(1);
    }

    private Scrape scrape(String url) {
        try {
            HttpResponse<String> response = get(url);
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            return new Scrape(response.headers().firstValue("Content-Type").orElse(""), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private HttpResponse<String> get(String url) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code 0.41 ms}, {@code 6.2 ms}, {@code 1.30 s} in seconds. */
    private static double seconds(String latency) {
        String[] parts = latency.split(" ");
        double value = Double.parseDouble(parts[0]);
        return parts[1].equals("ms") ? value / 1000 : value;
    }

    /** One answer of /metrics in the Prometheus text format. */
    private record Scrape(String contentType, String body) {

        /** The value of the sample named {@code name} whose labels include {@code labels} (key, value, ...). */
        double value(String name, String... labels) {
            return find(name, labels).orElseThrow(() -> new AssertionError("no sample " + name
                    + Arrays.toString(labels) + " in:\n" + body));
        }

        /** The first sample named {@code name} whose labels include {@code labels}; empty when there is none. */
        OptionalDouble find(String name, String... labels) {
            Map<String, String> wanted = new HashMap<>();
            for (int i = 0; i < labels.length; i += 2) {
                wanted.put(labels[i], labels[i + 1]);
            }
            Matcher sample = SAMPLE.matcher(body);
            while (sample.find()) {
                if (!sample.group(1).equals(name)) {
                    continue;
                }
                Map<String, String> found = new HashMap<>();
                Matcher label = LABEL.matcher(sample.group(2) == null ? "" : sample.group(2));
                while (label.find()) {
                    found.put(label.group(1), label.group(2));
                }
                if (found.entrySet().containsAll(wanted.entrySet())) {
                    return OptionalDouble.of(Double.parseDouble(sample.group(3)));
                }
            }
            return OptionalDouble.empty();
        }
    }
}
