package dev.dlock.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.testing.PostgresServers;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/** The listening connection's tweak of PgJDBC: found in the driver dlock ships with, and nothing is lost. */
class PgPromptNotificationsTest {

    @RegisterExtension
    static final PostgresServers postgres = PostgresServers.create();

    @Test
    void theDriversPendingCheckIsFoundAndNotificationsSentApartAndTogetherAllArrive() throws Exception {
        try (Connection listen = DriverManager.getConnection(postgres.server().jdbcUrl());
                Connection send = DriverManager.getConnection(postgres.server().jdbcUrl())) {
            try (Statement statement = listen.createStatement()) {
                statement.execute("LISTEN prompt_test");
            }
            // a PgJDBC upgrade that renames its state must fail here, not make every handoff 1 ms slower unseen
            assertThat(PgPromptNotifications.apply(listen)).isTrue();

            List<String> arrived = new ArrayList<>();
            PGConnection pg = listen.unwrap(PGConnection.class);
            try (Statement statement = send.createStatement()) {
                statement.execute("NOTIFY prompt_test, 'one'");
                collect(pg, arrived, 1);
                statement.execute("NOTIFY prompt_test, 'two'");
                statement.execute("NOTIFY prompt_test, 'three'");
                // one transaction, two messages: they may come in one read or two, and none may be left behind
                statement.execute("BEGIN; NOTIFY prompt_test, 'four'; NOTIFY prompt_test, 'five'; COMMIT");
                collect(pg, arrived, 5);
            }
            assertThat(arrived).containsExactly("one", "two", "three", "four", "five");

            PgPromptNotifications.undo(listen);
            try (Statement statement = listen.createStatement(); ResultSet one = statement.executeQuery("SELECT 1")) {
                assertThat(one.next()).isTrue();
            }
        }
    }

    private static void collect(PGConnection pg, List<String> arrived, int until) throws Exception {
        for (int calls = 0; arrived.size() < until && calls < 20; calls++) {
            PGNotification[] batch = pg.getNotifications(5_000);
            if (batch != null) {
                for (PGNotification notification : batch) {
                    arrived.add(notification.getParameter());
                }
            }
        }
    }
}
