package dev.dlock.examples.flashsale;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.testing.PostgresServer;
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
 * The same shop with no Redis at all: its stock and its locks in one PostgreSQL database
 * ({@code dlock.store=postgres} on the application's DataSource). 2,000 buyers, 10 phones sold.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "shop.payment-check=20ms", "spring.main.banner-mode=off", "logging.level.root=warn",
        "dlock.store=postgres", "spring.sql.init.mode=never"})
@DirtiesContext
class FlashSalePostgresTest {
    private static final int PHONES = 10;
    private static final int BUYERS = 2_000;
    private static final int CONCURRENT = 16;
    // not closed after the class: the application context outlives it (and closes its lock client
    // against a running server); the harness kills the server when the JVM exits
    private static final PostgresServer postgres = startWithShopTables();

    @LocalServerPort
    int port;

    @Autowired
    Stock stock;

    private static PostgresServer startWithShopTables() {
        PostgresServer server = PostgresServer.start();
        server.sql("create table stock (sku varchar(64) primary key, remaining int not null);"
                + " create table orders (id bigserial primary key, sku varchar(64) not null, buyer varchar(64) not null)");
        return server;
    }

    @DynamicPropertySource
    static void postgresProperties(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", postgres::jdbcUrl);
    }

    @BeforeEach
    void restock() {
        stock.restock("phone-x", PHONES);
    }

    @Test
    void withTheLockInPostgresExactlyTheStockIsSold() throws Exception {
        Map<Integer, Integer> answers = buyAtOnce("/phones/phone-x/purchase");
        assertThat(answers).isEqualTo(Map.of(200, PHONES, 409, BUYERS - PHONES));
        assertThat(stock.sold("phone-x")).isEqualTo(PHONES);
        assertThat(stock.remaining("phone-x")).isZero();
        assertThat(postgres.sql("select count(*) from dlock_hold where lease_end > clock_timestamp()")).as("holds left behind").isEqualTo("0");
    }

    private Map<Integer, Integer> buyAtOnce(String path) throws Exception {
        return Buyers.buyAtOnce(port, path, BUYERS, CONCURRENT);
    }
}
