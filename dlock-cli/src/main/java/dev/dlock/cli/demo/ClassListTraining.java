package dev.dlock.cli.demo;

import dev.dlock.cli.Main;
import dev.dlock.cli.common.ExitCodes;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;

/**
 * The run the {@code ./dlock} launcher lists the classes of, for its class data sharing archive:
 * each everyday command once, in this JVM, against a redis-server of its own, so that the archive
 * holds what every command loads (picocli, the client, Lettuce and Netty, each command's own
 * classes) whatever the first command after a build happens to be, or however it ends (a first
 * run against an unreachable Redis loads too few of them to archive). Exits 0 only when every
 * command did what it does against a working server; the launcher does not archive a failed run.
 */
public final class ClassListTraining {

    private ClassListTraining() {
    }

    public static void main(String[] args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        int failed;
        try (EmbeddedRedis redis = EmbeddedRedis.start()) {
            PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
            System.setOut(quiet);
            System.setErr(quiet);
            failed = runEveryCommand(redis.url());
        } catch (RuntimeException e) {
            err.println("dlock class list: " + e);
            failed = 1;
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        System.exit(failed == 0 ? 0 : 1);
    }

    /** How many commands did not end as they do against a working server. */
    private static int runEveryCommand(String url) {
        List<List<String>> commands = List.of(
                List.of("status", "training"),
                List.of("status", "--json", "training"),
                List.of("exec", "training", "--", "true"),
                List.of("exec", "--wait", "0", "--hold-at-least", "1ms", "training", "--", "true"),
                List.of("exec", "--shared", "training-shared", "--", "true"),
                List.of("exec", "--permits", "2", "training-semaphore", "--", "true"),
                List.of("list"),
                List.of("list", "--json"),
                List.of("top", "--once"));
        int failed = 0;
        for (List<String> command : commands) {
            String[] line = new String[command.size() + 2];
            line[0] = "--redis";
            line[1] = url;
            for (int i = 0; i < command.size(); i++) {
                line[i + 2] = command.get(i);
            }
            if (Main.run(line) != 0) {
                failed++;
            }
        }
        // the lock is free by now: release says so with exit 1 (nothing released)
        if (Main.run("--redis", url, "release", "--force", "training") != ExitCodes.FAILED) {
            failed++;
        }
        return failed;
    }
}
