package dev.dlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LinkedHashSet;
import org.junit.jupiter.api.Test;

/**
 * The short seeded campaign over PostgreSQL the build runs: about two minutes, every fault kind (on
 * one server with clients direct and through PgBouncer, then a failover to a synchronous replica,
 * then one to an asynchronous replica; clock skew needs gcc, the notes say when it was skipped).
 * The long run is {@code java -jar dlock-faults/target/dlock-faults.jar --store postgres --duration 30m --seed N}.
 */
class ShortPostgresCampaignTest {

    @Test
    void everyPropertyHoldsThroughASeededScheduleOfEveryFaultKind() throws Exception {
        Campaign.Result result = Campaign.run(new Campaign.Options(Duration.ofSeconds(80), 20261128,
                new LinkedHashSet<>(Campaign.POSTGRES_KINDS), null, "postgres"));
        System.out.println(result.table());
        result.notes().forEach(note -> System.out.println("note: " + note));
        assertThat(result.verdict().violations()).as(result.violationsText()).isEmpty();
    }
}
