package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.cli.common.Durations;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.TypeConversionException;

class DurationsTest {

    @Test
    void readsUnitsCombinationsIsoAndABareZero() {
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(Durations.parse("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Durations.parse("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(Durations.parse("1d")).isEqualTo(Duration.ofDays(1));
        assertThat(Durations.parse("1m30s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(Durations.parse("PT10S")).isEqualTo(Duration.ofSeconds(10));
        assertThat(Durations.parse("0")).isEqualTo(Duration.ZERO);
        assertThat(Durations.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Durations.parse("0.25m")).isEqualTo(Duration.ofSeconds(15));
        assertThat(Durations.parse("1m0.5s")).isEqualTo(Duration.ofMillis(60_500));
    }

    /** flock's -w: a bare number is seconds, fractions allowed; a unit still reads as a duration. */
    @Test
    void flockSecondsReadBareNumbersAsSeconds() {
        Durations.Seconds seconds = new Durations.Seconds();
        assertThat(seconds.convert("0")).isEqualTo(Duration.ZERO);
        assertThat(seconds.convert("5")).isEqualTo(Duration.ofSeconds(5));
        assertThat(seconds.convert("0.5")).isEqualTo(Duration.ofMillis(500));
        assertThat(seconds.convert(".25")).isEqualTo(Duration.ofMillis(250));
        assertThat(seconds.convert("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThatThrownBy(() -> seconds.convert("-1")).isInstanceOf(TypeConversionException.class)
                .hasMessageContaining("'-1'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"10x", "-5s", "10", "s", "", "1.5", "1.s", ".5s", "PT-1S", "ten seconds", "99999999999999999999d"})
    void refusesWhatIsNotAZeroOrPositiveDurationNamingTheValue(String text) {
        assertThatThrownBy(() -> Durations.parse(text))
                .isInstanceOf(TypeConversionException.class)
                .hasMessageContaining("'" + text + "'");
    }

    @Test
    void writesDurationsShort() {
        assertThat(Durations.format(Duration.ofMillis(850))).isEqualTo("850 ms");
        assertThat(Durations.format(Duration.ofMillis(4210))).isEqualTo("4.2 s");
        assertThat(Durations.format(Duration.ofSeconds(185))).isEqualTo("3m 05s");
        assertThat(Durations.format(Duration.ofMinutes(130))).isEqualTo("2h 10m");
    }
}
