package dev.dlock.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockClient;
import dev.dlock.LockException;
import dev.dlock.spring.LockBusyException;
import dev.dlock.spring.WithLock;
import dev.dlock.testing.RedisServer;
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
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Service;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A busy lock in a Spring MVC application with no exception handling of its own: 409 with a
 * problem body naming the lock and the wait, and no ERROR stack trace in the log.
 */
@SpringBootTest(classes = BusyResponseTest.App.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {"spring.main.banner-mode=off", "management.health.redis.enabled=false", "dlock.command-timeout=1s"})
@DirtiesContext
@ExtendWith(OutputCaptureExtension.class)
class BusyResponseTest {
    private static final RedisServer redis = RedisServer.start();

    @LocalServerPort
    int port;

    @Autowired
    LockClient client;

    @DynamicPropertySource
    static void redisProperties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", redis::host);
        registry.add("spring.data.redis.port", redis::port);
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
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
            response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port + "/accounts/42/withdrawals"))
                    .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
        } finally {
            release.countDown();
            holder.get(30, TimeUnit.SECONDS);
        }
        assertThat(response.statusCode()).isEqualTo(409);
        assertThat(response.headers().firstValue("Content-Type")).get().asString().startsWith("application/problem+json");
        JsonNode problem = JsonMapper.builder().build().readTree(response.body());
        assertThat(problem.get("status").asInt()).isEqualTo(409);
        assertThat(problem.get("title").asString()).isEqualTo("Lock busy");
        assertThat(problem.get("lockName").asString()).isEqualTo("account:42");
        assertThat(problem.get("waitMillis").asLong()).isEqualTo(200);
        assertThat(problem.get("detail").asString()).contains("'account:42'").contains("200 ms");
        assertThat(problem.get("instance").asString()).isEqualTo("/accounts/42/withdrawals");
        assertThat(output.getOut() + output.getErr()).doesNotContain("ERROR").doesNotContain(LockBusyException.class.getName());
    }

    @Test
    void busyAndBackendFailuresShareOneType() {
        assertThat(LockException.class).isAssignableFrom(LockBusyException.class)
                .isAssignableFrom(dev.dlock.LockBackendException.class);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({Accounts.class, AccountsController.class})
    static class App {
    }

    @Service
    static class Accounts {
        @WithLock(key = "'account:' + #id", waitTime = "200ms")
        public String withdraw(long id) {
            return "done";
        }
    }

    @RestController
    static class AccountsController {
        private final Accounts accounts;

        AccountsController(Accounts accounts) {
            this.accounts = accounts;
        }

        @PostMapping("/accounts/{id}/withdrawals")
        String withdraw(@PathVariable long id) {
            return accounts.withdraw(id);
        }
    }
}
