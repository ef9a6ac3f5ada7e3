package dev.dlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LinkedHashSet;
import org.junit.jupiter.api.Test;

/**
 * The short seeded campaign the build runs: about two minutes, every fault kind the machine
 * supports (a partition needs root, clock skew needs gcc; the notes say what was skipped).
 * The long run is {@code java -jar dlock-faults/target/dlock-faults.jar --duration 15m --seed N}.
 */
class ShortCampaignTest {

    @Test
    void everyPropertyHoldsThroughASeededScheduleOfEveryFaultKind() throws Exception {
        Campaign.Result result = Campaign.run(new Campaign.Options(Duration.ofSeconds(95), 20261126,
                new LinkedHashSet<>(Campaign.REDIS_KINDS), null, "redis"));
        System.out.println(result.table());
        result.notes().forEach(note -> System.out.println("note: " + note));
        assertThat(result.verdict().violations()).as(result.violationsText()).isEmpty();
    }
}
