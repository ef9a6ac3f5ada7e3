package dev.dlock.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedLock;
import dev.dlock.LockBusyException;
import dev.dlock.LockClient;
import dev.dlock.LockException;
import dev.dlock.micrometer.DlockMetrics;
import dev.dlock.spring.WithLock;
import dev.dlock.testing.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * dlock in a Spring MVC application with the actuator (and so Spring Boot's own MeterRegistry and
 * ObservationRegistry), over HTTP: the locks endpoint, the health indicator, dlock's meters, and
 * the answer to a busy lock, with no exception handling of the application's.
 */
@SpringBootTest(classes = WebApplicationTest.App.class, webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "management.endpoints.web.exposure.include=health,locks,metrics", "management.endpoint.health.show-details=always",
        "dlock.command-timeout=1s", "spring.main.banner-mode=off", "logging.level.dev.dlock.spring=info",
        // Spring Data Redis is on the class path too: its own health check would wait 60 s on a paused Redis
        "management.health.redis.enabled=false"})
@DirtiesContext
@ExtendWith(OutputCaptureExtension.class)
class WebApplicationTest {
    private static final RedisServer redis = RedisServer.start();
    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @LocalServerPort
    int port;

    @Autowired
    LockClient client;

    @Autowired
    MeterRegistry registry;

    @Autowired
    Orders orders;

    @DynamicPropertySource
    static void redisProperties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", redis::host);
        registry.add("spring.data.redis.port", redis::port);
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> response) {
        return JsonMapper.builder().build().readTree(response.body());
    }

    @Test
    void locksListsTheHeldLocksMatchingThePattern() throws Exception {
        DistributedLock order = client.getLock("order:42");
        DistributedLock invoice = client.getLock("invoice:7");
        long beforeLock = System.nanoTime();
        order.lock(Duration.ofMinutes(5));
        invoice.lock();
        try {
            HttpResponse<String> response = get("/actuator/locks?pattern=order:*");
            assertThat(response.statusCode()).isEqualTo(200);
            JsonNode body = json(response);
            assertThat(body.get("pattern").asString()).isEqualTo("order:*");
            assertThat(body.get("redis").asString()).contains(String.valueOf(redis.port()));
            assertThat(body.get("locks")).hasSize(1);
            JsonNode lock = body.get("locks").get(0);
            assertThat(lock.get("name").asString()).isEqualTo("order:42");
            assertThat(lock.get("holder").get("thread").asString()).isEqualTo(Thread.currentThread().getName());
            assertThat(lock.get("holder").get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
            assertThat(lock.get("holdCount").asInt()).isEqualTo(1);
            assertThat(lock.get("leaseLeftMillis").asLong()).isBetween(1L, Duration.ofMinutes(5).toMillis());
            // measured on Redis's clock, which runs on this machine too
            assertThat(lock.get("heldForMillis").asLong())
                    .isBetween(0L, Duration.ofNanos(System.nanoTime() - beforeLock).toMillis() + 1000);
            assertThat(lock.get("fencingToken").asLong()).isEqualTo(order.fencingToken());
            assertThat(lock.get("waitingClients").asLong()).isZero();

            assertThat(json(get("/actuator/locks")).get("locks")).hasSize(2);
        } finally {
            order.unlock();
            invoice.unlock();
        }
        assertThat(json(get("/actuator/locks")).get("locks")).isEmpty();
    }

    @Test
    void healthIsUpWhileRedisAnswersAndDownWhileItDoesNotLoggingOneLinePerOutage(CapturedOutput output) throws Exception {
        HttpResponse<String> up = get("/actuator/health");
        assertThat(up.statusCode()).isEqualTo(200);
        JsonNode dlock = json(up).get("components").get("dlock");
        assertThat(dlock.get("status").asString()).isEqualTo("UP");
        assertThat(dlock.get("details").get("redis").asString()).contains(String.valueOf(redis.port()));

        redis.pause();
        try {
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> down = get("/actuator/health");
                assertThat(down.statusCode()).isEqualTo(503);
                JsonNode failed = json(down).get("components").get("dlock");
                assertThat(failed.get("status").asString()).isEqualTo("DOWN");
                assertThat(failed.get("details").get("error").asString()).contains("LockBackendException");
            }
        } finally {
            redis.resume();
        }
        assertThat(get("/actuator/health").statusCode()).isEqualTo(200);
        String log = output.getOut() + output.getErr();
        assertThat(log).doesNotContain("\tat ").doesNotContain("ERROR");
        assertThat(log.lines().filter(line -> line.contains(" WARN ") && line.contains("DlockHealthIndicator")))
                .singleElement().asString().contains("dlock health is DOWN");
        assertThat(log).contains("3 probe(s) DOWN meanwhile");
    }

    @Test
    void aLockedCallIsMeteredInSpringBootsRegistryAndServedByTheMetricsEndpoint() throws Exception {
        double before = acquired(registry);
        orders.ship(42);
        assertThat(acquired(registry)).isEqualTo(before + 1);
        // Spring Boot's ObservationRegistry turns the acquire observation into its own timer too
        assertThat(registry.find(DlockMetrics.ACQUIRE_OBSERVATION).tag("outcome", "acquired").timer()).isNotNull();

        HttpResponse<String> response = get("/actuator/metrics/dlock.acquire.wait?tag=outcome:acquired");
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = json(response);
        assertThat(body.get("name").asString()).isEqualTo(DlockMetrics.ACQUIRE_WAIT);
        assertThat(body.get("baseUnit").asString()).isEqualTo("seconds");
        JsonNode count = body.get("measurements").valueStream()
                .filter(measurement -> measurement.get("statistic").asString().equals("COUNT")).findFirst().orElseThrow();
        assertThat(count.get("value").asDouble()).isEqualTo(acquired(registry));
        assertThat(body.get("availableTags").valueStream().map(tag -> tag.get("tag").asString())).contains("kind");
    }

    @Test
    void aBusyLockIsA409ProblemNamingTheLockAndTheWaitWithNoErrorLogged(CapturedOutput output) throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
            client.getLock("account:42").lock();
            try {
                held.countDown();
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                client.getLock("account:42").unlock();
            }
        });
        assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
        HttpResponse<String> response;
        try {
            response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/accounts/42/withdrawals"))
                    .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
        } finally {
            release.countDown();
            holder.get(30, TimeUnit.SECONDS);
        }
        assertThat(response.statusCode()).isEqualTo(409);
        assertThat(response.headers().firstValue("Content-Type")).get().asString().startsWith("application/problem+json");
        JsonNode problem = json(response);
        assertThat(problem.get("status").asInt()).isEqualTo(409);
        assertThat(problem.get("title").asString()).isEqualTo("Lock busy");
        assertThat(problem.get("lockName").asString()).isEqualTo("account:42");
        assertThat(problem.get("waitMillis").asLong()).isEqualTo(200);
        assertThat(problem.get("detail").asString()).contains("'account:42'").contains("200 ms");
        assertThat(problem.get("instance").asString()).isEqualTo("/accounts/42/withdrawals");
        assertThat(output.getOut() + output.getErr()).doesNotContain("ERROR").doesNotContain(LockBusyException.class.getName());
    }

    @Test
    void anOutageIsA503ProblemWithRetryAfterLoggedOnceForTheWholeOutage(CapturedOutput output) throws Exception {
        redis.pause();
        try {
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> response = withdraw(43);
                assertThat(response.statusCode()).isEqualTo(503);
                assertThat(response.headers().firstValue("Content-Type")).get().asString()
                        .startsWith("application/problem+json");
                assertThat(response.headers().firstValue("Retry-After")).contains("5");
                JsonNode problem = json(response);
                assertThat(problem.get("status").asInt()).isEqualTo(503);
                assertThat(problem.get("lockName").asString()).isEqualTo("account:43");
                assertThat(problem.get("detail").asString()).contains("'account:43'")
                        .doesNotContain(String.valueOf(redis.port()));
            }
        } finally {
            redis.resume();
        }
        assertThat(withdraw(43).statusCode()).isEqualTo(200);
        String log = output.getOut() + output.getErr();
        assertThat(log).doesNotContain("ERROR").doesNotContain("\tat ");
        assertThat(log.lines().filter(line -> line.contains(" WARN ") && line.contains("WithLockInterceptor")))
                .singleElement().asString().contains("Orders.withdraw() took lock 'account:43'")
                .contains("a web request answers 503");
        assertThat(log).contains("3 call(s) failed");
    }

    private HttpResponse<String> withdraw(long account) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/accounts/" + account
                        + "/withdrawals")).timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void busyAndBackendFailuresShareOneType() {
        assertThat(LockException.class).isAssignableFrom(LockBusyException.class)
                .isAssignableFrom(dev.dlock.LockBackendException.class);
    }

    private static double acquired(MeterRegistry registry) {
        Timer timer = registry.find(DlockMetrics.ACQUIRE_WAIT).tag("outcome", "acquired").timer();
        return timer == null ? 0 : timer.count();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(AccountsController.class)
    static class App {
        @Bean
        Orders orders() {
            return new Orders();
        }
    }

    /** A service with locked methods. */
    static class Orders {
        @WithLock(key = "'order:' + #p0", waitTime = "10s")
        public void ship(long order) {
        }

        @WithLock(key = "'account:' + #id", waitTime = "200ms")
        public String withdraw(long id) {
            return "done";
        }
    }

    @RestController
    static class AccountsController {
        private final Orders orders;

        AccountsController(Orders orders) {
            this.orders = orders;
        }

        @PostMapping("/accounts/{id}/withdrawals")
        String withdraw(@PathVariable long id) {
            return orders.withdraw(id);
        }
    }
}
