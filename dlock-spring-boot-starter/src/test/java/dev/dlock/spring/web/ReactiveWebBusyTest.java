package dev.dlock.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockClient;
import dev.dlock.spring.WithLock;
import dev.dlock.testing.RedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A busy lock and a store outage in a WebFlux application, on a Mono, with no advice of the
 * application's: 409 and 503, each with its problem.
 */
@SpringBootTest(classes = ReactiveWebBusyTest.App.class, webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "spring.main.web-application-type=reactive", "spring.main.banner-mode=off",
        "management.health.redis.enabled=false", "dlock.command-timeout=1s"})
@DirtiesContext
class ReactiveWebBusyTest {
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
    void aBusyLockIsA409Problem() throws Exception {
        var held = client.getLock("account:7").acquireAsync().get(30, TimeUnit.SECONDS);
        HttpResponse<String> response;
        try {
            response = withdraw(7);
        } finally {
            held.release();
        }
        assertThat(response.statusCode()).isEqualTo(409);
        assertThat(response.headers().firstValue("Content-Type")).get().asString().startsWith("application/problem+json");
        JsonNode problem = JsonMapper.builder().build().readTree(response.body());
        assertThat(problem.get("lockName").asString()).isEqualTo("account:7");
        assertThat(problem.get("waitMillis").asLong()).isZero();
    }

    @Test
    void anOutageIsA503ProblemWithRetryAfter() throws Exception {
        HttpResponse<String> response;
        redis.pause();
        try {
            response = withdraw(8);
        } finally {
            redis.resume();
        }
        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Content-Type")).get().asString().startsWith("application/problem+json");
        assertThat(response.headers().firstValue("Retry-After")).contains("5");
        assertThat(JsonMapper.builder().build().readTree(response.body()).get("lockName").asString()).isEqualTo("account:8");
    }

    private HttpResponse<String> withdraw(long account) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/accounts/" + account + "/withdrawals"))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(AccountsController.class)
    static class App {
        @Bean
        Accounts accounts() {
            return new Accounts();
        }
    }

    static class Accounts {
        @WithLock(key = "'account:' + #id", waitTime = "0")
        public Mono<String> withdraw(long id) {
            return Mono.just("done");
        }
    }

    @RestController
    static class AccountsController {
        private final Accounts accounts;

        AccountsController(Accounts accounts) {
            this.accounts = accounts;
        }

        @PostMapping("/accounts/{id}/withdrawals")
        Mono<String> withdraw(@PathVariable long id) {
            return accounts.withdraw(id);
        }
    }
}
