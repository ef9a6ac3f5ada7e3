package dev.dlock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.bench.contenders.RawHandoffFloor;
import dev.dlock.bench.scenarios.LoadScenarios;
import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The raw handoff floor's ring on a real redis-server, its members in one process here: the lock
 * goes round, one holder at a time, and every thread stops although the members' threads stop
 * at different times; and the servers' CPU time is read from INFO.
 */
class RawHandoffFloorTest {

    @Test
    void theLockGoesRoundTheRingOneHolderAtATimeAndEveryThreadStops() {
        try (RedisServer server = RedisServer.start()) {
            List<RawHandoffFloor> members = new ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    members.add(new RawHandoffFloor(server.uri(), 4, 30_000));
                }
                assertThatThrownBy(() -> new RawHandoffFloor(server.uri(), 4, 30_000))
                        .hasMessageContaining("the ring has 4 members");
                Map<Metric, Double> figures = LoadScenarios.contended(
                        i -> members.get(i % members.size()).lock("bench:ring-test"), 8, Duration.ofMillis(100),
                        Duration.ofMillis(300));
                assertThat(figures.get(Metric.ACQUISITIONS)).isPositive();
                assertThat(figures.get(Metric.VIOLATIONS)).isZero();
                // each handoff goes to the next member, never back to the thread that released
                assertThat(figures.get(Metric.SAME_THREAD)).isZero();
                assertThat(figures.get(Metric.HANDOFF_P50)).isPositive();
                assertThat(server.command("GET", "bench:ring-test")).asString().startsWith("member-");
            } finally {
                members.forEach(RawHandoffFloor::close);
            }
        }
    }

    @Test
    void serverCpuIsTheSumOfUserAndSystemTimeOfEveryServer() {
        assertThat(ServerCpu.usedSeconds("# CPU\r\nused_cpu_sys:1.250000\r\nused_cpu_user:0.500000\r\n"
                + "used_cpu_sys_children:9.000000\r\nused_cpu_user_children:9.000000\r\n")).isEqualTo(1.75);
        try (RedisServer first = RedisServer.start(); RedisServer second = RedisServer.start();
             ServerCpu cpu = new ServerCpu(List.of(first.uri(), second.uri()))) {
            double before = cpu.micros();
            for (int i = 0; i < 2_000; i++) {
                first.command("SET", "k", "v");
            }
            assertThat(cpu.micros()).isGreaterThan(before);
        }
    }
}
