package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.testing.RedisServers;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The flash-sale demo, run as the user runs it, its numbers checked against what Redis recorded. */
class DemoTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private static final Pattern ROW = Pattern.compile(
            "^(nolock|lock)\\s+([\\d,]+)\\s+([\\d,]+)\\s+([\\d,]+)\\s+.*$", Pattern.MULTILINE);

    @RepeatedTest(3)
    void lockModeSellsExactlyTheStock() {
        Cli.Result result = Cli.run("--redis", redis.server().uri(), "demo", "flash-sale", "--mode", "lock",
                "--stock", "7", "--buyers", "300", "--clients", "3", "--threads", "2", "--keep-data");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        Row lock = row(result, "lock");
        assertThat(lock.sold()).isEqualTo(7);
        assertThat(lock.oversold()).isZero();
        assertThat(lock.served()).isEqualTo(300);
        assertThat(ordersRecorded("lock")).as("orders in Redis").isEqualTo(7);
        assertThat(result.stdout()).contains("lock:   sold 7 of 7 phones, exactly the stock");
    }

    @Test
    void nolockModeReportsTheOversellRedisRecorded() {
        Cli.Result result = Cli.run("--redis", redis.server().uri(), "demo", "--mode", "nolock",
                "--stock", "5", "--buyers", "400", "--keep-data");

        assertThat(result.exitCode()).as("an oversell without the lock is the demo's point, not a failure: "
                + result).isZero();
        Row nolock = row(result, "nolock");
        long recorded = ordersRecorded("nolock");
        assertThat(nolock.sold()).isEqualTo(recorded);
        assertThat(nolock.oversold()).isEqualTo(Math.max(0, recorded - 5));
        assertThat(nolock.served()).isEqualTo(400);
    }

    @Test
    void bothModesSayWhichRedisTheyUsedAndLeaveNothingBehind() {
        Cli.Result result = Cli.run("--redis", redis.server().uri(), "demo", "--buyers", "300");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.stdout().lines().findFirst()).hasValue("redis: using --redis " + redis.server().uri());
        assertThat(result.stdout()).contains("mode", "sold", "oversold", "buyers served", "elapsed",
                "purchases/s", "lock wait p50", "lock wait p99");
        assertThat(row(result, "nolock").served()).isEqualTo(300);
        assertThat(row(result, "lock").sold()).isEqualTo(10);
        assertThat(result.stderr()).isEmpty();
        assertThat(redis.server().keys("*")).as("stock, orders and locks cleaned up").isEmpty();
    }

    private static long ordersRecorded(String mode) {
        List<String> keys = redis.server().keys("dlock-demo:*:" + mode + ":orders");
        assertThat(keys).hasSize(1);
        Object length = redis.server().command("LLEN", keys.get(0));
        redis.server().command("DEL", keys.get(0));
        return ((Number) length).longValue();
    }

    private static Row row(Cli.Result result, String mode) {
        Matcher matcher = ROW.matcher(result.stdout());
        while (matcher.find()) {
            if (matcher.group(1).equals(mode)) {
                return new Row(number(matcher.group(2)), number(matcher.group(3)), number(matcher.group(4)));
            }
        }
        throw new AssertionError("no '" + mode + "' row in the table:\n" + result);
    }

    private static long number(String digits) {
        return Long.parseLong(digits.replace(",", ""));
    }

    private record Row(long sold, long oversold, long served) {
    }
}
