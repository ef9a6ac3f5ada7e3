package dev.dlock.examples.flashsale;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.testing.ZooKeeperEnsemble;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The same shop with its locks in a ZooKeeper ensemble of 3 real servers ({@code dlock.store=zookeeper})
 * and its stock in the application's own database. 2,000 buyers, 10 phones sold.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "shop.payment-check=20ms", "spring.main.banner-mode=off", "logging.level.root=warn",
        "dlock.store=zookeeper"})
@DirtiesContext
class FlashSaleZooKeeperTest {
    private static final int PHONES = 10;
    private static final int BUYERS = 2_000;
    private static final int CONCURRENT = 16;
    // not closed after the class: the application context outlives it (and closes its lock client
    // against running servers); the harness kills the servers when the JVM exits
    private static final ZooKeeperEnsemble zookeeper = ZooKeeperEnsemble.of(3).start();

    @LocalServerPort
    int port;

    @Autowired
    Stock stock;

    @DynamicPropertySource
    static void zookeeperProperties(DynamicPropertyRegistry registry) {
        registry.add("dlock.zookeeper.connect-string", zookeeper::connectString);
    }

    @BeforeEach
    void restock() {
        stock.restock("phone-x", PHONES);
    }

    @Test
    void withTheLockInZooKeeperExactlyTheStockIsSold() throws Exception {
        Map<Integer, Integer> answers = Buyers.buyAtOnce(port, "/phones/phone-x/purchase", BUYERS, CONCURRENT);
        assertThat(answers).isEqualTo(Map.of(200, PHONES, 409, BUYERS - PHONES));
        assertThat(stock.sold("phone-x")).isEqualTo(PHONES);
        assertThat(stock.remaining("phone-x")).isZero();
    }
}
