package dev.dlock;

import dev.dlock.testing.RedisServer;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What a server counted in INFO commandstats since it started. */
final class CommandStats {
    private static final Pattern SCRIPT_CALLS = Pattern.compile("cmdstat_eval(?:sha)?:calls=(\\d+)");
    private static final Pattern PUBLISHES = Pattern.compile("cmdstat_publish:calls=(\\d+)");
    private static final Pattern ANY_COMMAND = Pattern.compile("cmdstat_([^:]+):calls=(\\d+)");

    private CommandStats() {
    }

    /**
     * @return how many EVAL and EVALSHA calls the server has run: every dlock operation is one script
     *     call, so tests can count attempts and check that a refusal made none
     */
    static long scriptCalls(RedisServer server) {
        return calls(server, SCRIPT_CALLS);
    }

    /** How many PUBLISH calls the server has run, scripts' included: each is a release that woke waiters. */
    static long publishes(RedisServer server) {
        return calls(server, PUBLISHES);
    }

    /** Every command the server has run and how many times (its name as INFO writes it: {@code zrange}). */
    static Map<String, Long> all(RedisServer server) {
        Matcher matcher = ANY_COMMAND.matcher((String) server.command("INFO", "commandstats"));
        Map<String, Long> calls = new TreeMap<>();
        while (matcher.find()) {
            calls.merge(matcher.group(1), Long.parseLong(matcher.group(2)), Long::sum);
        }
        return calls;
    }

    /** How many times the server ran the command ({@code "zrange"}), called by scripts included. */
    static long calls(RedisServer server, String command) {
        return calls(server, Pattern.compile("cmdstat_" + Pattern.quote(command.toLowerCase()) + ":calls=(\\d+)"));
    }

    private static long calls(RedisServer server, Pattern commandStat) {
        Matcher matcher = commandStat.matcher((String) server.command("INFO", "commandstats"));
        long calls = 0;
        while (matcher.find()) {
            calls += Long.parseLong(matcher.group(1));
        }
        return calls;
    }
}
