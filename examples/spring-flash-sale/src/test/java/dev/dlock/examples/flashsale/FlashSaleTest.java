package dev.dlock.examples.flashsale;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.testing.RedisServer;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** 2,000 buyers over HTTP at once for 10 phones: with the lock exactly 10 are sold. */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "shop.payment-check=20ms", "spring.main.banner-mode=off", "logging.level.root=warn"})
@DirtiesContext
class FlashSaleTest {
    private static final int PHONES = 10;
    private static final int BUYERS = 2_000;
    private static final int CONCURRENT = 16;
    private static final RedisServer redis = RedisServer.start();

    @LocalServerPort
    int port;

    @Autowired
    Stock stock;

    @DynamicPropertySource
    static void redisProperties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", redis::host);
        registry.add("spring.data.redis.port", redis::port);
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @BeforeEach
    void restock() {
        stock.restock("phone-x", PHONES);
    }

    @Test
    void withTheLockExactlyTheStockIsSold() throws Exception {
        Map<Integer, Integer> answers = buyAtOnce("/phones/phone-x/purchase");
        assertThat(answers).isEqualTo(Map.of(200, PHONES, 409, BUYERS - PHONES));
        assertThat(stock.sold("phone-x")).isEqualTo(PHONES);
        assertThat(stock.remaining("phone-x")).isZero();
        assertThat(redis.keys("dlock:{phone:*")).as("lock keys left behind").isEmpty();
    }

    @Test
    void withoutTheLockTheSameCodeOversells() throws Exception {
        Map<Integer, Integer> answers = buyAtOnce("/unlocked/phones/phone-x/purchase");
        assertThat(answers.get(200)).as("purchases accepted").isGreaterThan(PHONES);
        assertThat(stock.sold("phone-x")).isGreaterThan(PHONES);
    }

    private Map<Integer, Integer> buyAtOnce(String path) throws Exception {
        return Buyers.buyAtOnce(port, path, BUYERS, CONCURRENT);
    }
}
