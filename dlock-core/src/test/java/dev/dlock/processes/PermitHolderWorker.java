package dev.dlock.processes;

import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.LockHandle;
import dev.dlock.RedisStore;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;

/**
 * A separate JVM that takes one permit of a semaphore with the watchdog and holds it; the test may
 * kill it (SIGKILL) or pause it (SIGSTOP). Once it holds the permit it prints "HOLDING <token>",
 * then waits on the witness Redis (BLPOP permit:write) and, when told, writes to the fenced
 * resource there with its token, whatever became of its permit meanwhile (a paused process that
 * resumes believing it still holds), and prints "WRITE <token> accepted" or "WRITE <token> rejected".
 * Args: redisUri semaphoreName permits watchdogLeaseMillis witnessUri.
 */
public final class PermitHolderWorker {

    /**
     * The fenced resource: remembers the highest token it accepted and refuses any other.
     * KEYS: the resource's highest token. ARGV: the writer's token. Returns 1 accepted, 0 refused.
     */
    public static final String FENCED_WRITE = """
            if tonumber(ARGV[1]) > tonumber(redis.call('GET', KEYS[1]) or '0') then
              redis.call('SET', KEYS[1], ARGV[1])
              return 1
            end
            return 0
            """;

    public static void main(String[] args) {
        long leaseMs = Long.parseLong(args[3]);
        LockClient client = connect(args[0], leaseMs);
        LockHandle permit = client.getSemaphore(args[1], Integer.parseInt(args[2])).acquireUninterruptibly();
        long token = permit.fencingToken();
        System.out.println("HOLDING " + token);
        RedisClient witness = RedisClient.create(args[4]);
        try (StatefulRedisConnection<String, String> connection = witness.connect()) {
            KeyValue<String, String> told = connection.sync().blpop(120, "permit:write");
            if (told == null) {
                throw new IllegalStateException("not told to write within 120 s");
            }
            Long accepted = connection.sync().eval(FENCED_WRITE, ScriptOutputType.INTEGER,
                    new String[] {"resource:highest-token"}, Long.toString(token));
            System.out.println("WRITE " + token + (accepted == 1 ? " accepted" : " rejected"));
        } finally {
            witness.shutdown();
        }
        System.exit(0);
    }

    /** A JVM starting on a loaded 2-core machine can miss a short connect timeout: try again. */
    private static LockClient connect(String uri, long leaseMs) {
        for (int attempt = 1; ; attempt++) {
            try {
                return LockClient.builder()
                        .store(RedisStore.standalone(uri))
                        .defaultLease(Duration.ofMillis(leaseMs))
                        .commandTimeout(Duration.ofMillis(leaseMs / 4))
                        .clientName("permit-holder")
                        .build();
            } catch (LockBackendException e) {
                if (attempt == 5) {
                    throw e;
                }
                System.err.println("connect attempt " + attempt + " failed, retrying: " + e.getMessage());
            }
        }
    }
}
