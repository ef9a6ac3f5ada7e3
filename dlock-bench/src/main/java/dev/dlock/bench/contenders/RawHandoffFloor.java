package dev.dlock.bench.contenders;

import dev.dlock.bench.Main;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The least a handoff from one process to another through Redis does: one script call (set the
 * lock's key to the next holder, publish the grant on that holder's channel), the message's
 * delivery to the other process, and the wake-up of a thread parked there. As a contender of
 * {@code contended-processes} each process opens one member of a ring of {@link #MEMBERS}: the
 * holder hands the lock to the next member, whose pub/sub listener (Lettuce's event loop, as in
 * dlock) releases a fair semaphore on which that process's threads are parked, first come first
 * served; so every handoff crosses to another JVM, and the other threads of a process stay parked
 * as dlock's queued waiters do. Nothing is asked of Redis to acquire: the grant is the acquisition.
 * There is no lease renewal, no queue, no token: this is the floor, not a lock. As a contender of
 * {@code contended-clients} the ring's members are the run's clients in its own JVM (as many as
 * there are processes in {@code contended-processes}): every handoff crosses to another client.
 *
 * <p>A member learns its place from a counter in Redis (the run flushes the servers before every
 * contender's run). The first member starts with the lock; its first release happens only after
 * every process said it is ready, that is after every member subscribed.
 */
public final class RawHandoffFloor implements Contender {

    /** The members of the ring: one per JVM of {@code contended-processes}, one per client of {@code contended-clients}. */
    static final int MEMBERS = Main.CONTENDED_PROCESSES;
    static final String MEMBERS_KEY = "bench:ring:members";
    private static final String SCRIPT = RawContenders.script("ring_handoff.lua");
    /** How often a grant no thread of this process waits for is looked for (see {@link #forwardUnclaimed}). */
    private static final Duration UNCLAIMED_CHECK = Duration.ofMillis(50);

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final StatefulRedisPubSubConnection<String, String> grants;
    private final RedisCommands<String, String> commands;
    private final String sha;
    private final int member;
    private final int members;
    private final String lease;
    /** The grants this process holds and no thread took yet (0 or 1); its threads park on it in order. */
    private final Semaphore held = new Semaphore(0, true);
    private final ScheduledExecutorService unclaimed;
    private volatile String lockKey;

    static Contender open(List<String> uris, Contender.Settings settings) {
        return new RawHandoffFloor(uris.get(0), MEMBERS, settings.watchdogLeaseMs());
    }

    public RawHandoffFloor(String uri, int members, long leaseMs) {
        this.members = members;
        this.lease = Long.toString(leaseMs);
        client = RedisClient.create(uri);
        connection = client.connect();
        commands = connection.sync();
        sha = commands.scriptLoad(SCRIPT);
        grants = client.connectPubSub();
        grants.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                held.release();
            }
        });
        member = (int) (commands.incr(MEMBERS_KEY) - 1);
        if (member >= members) {
            close();
            throw new IllegalStateException("the ring has " + members + " members, and this is number " + (member + 1)
                    + " (was " + MEMBERS_KEY + " left from another run?)");
        }
        grants.sync().subscribe(channel(member));
        if (member == 0) {
            held.release();
        }
        unclaimed = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "ring-unclaimed-" + member);
            thread.setDaemon(true);
            return thread;
        });
        unclaimed.scheduleWithFixedDelay(this::forwardUnclaimed, UNCLAIMED_CHECK.toMillis(), UNCLAIMED_CHECK.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** The ring's one lock, whatever the name (the key is the first name asked for). */
    @Override
    public BenchLock lock(String name) {
        if (lockKey == null) {
            lockKey = name;
        }
        return new BenchLock() {
            @Override
            public void lock() {
                held.acquireUninterruptibly();
            }

            @Override
            public void unlock() {
                passOn();
            }
        };
    }

    /**
     * Hands the lock to the next member that listens; one that closed (its threads stopped) is
     * skipped, and when nobody else listens the lock stays here.
     */
    private void passOn() {
        String key = lockKey != null ? lockKey : "bench:ring";
        for (int step = 1; step < members; step++) {
            int next = (member + step) % members;
            Long received = commands.evalsha(sha, ScriptOutputType.INTEGER, new String[] {key}, "member-" + next,
                    channel(next), lease);
            if (received != null && received > 0) {
                return;
            }
        }
        held.release();
    }

    /**
     * Passes on a grant that arrived while no thread of this process waited for it. Never so while
     * the threads run (each process has more threads than the one that just released, all parked
     * here, and a try with a timeout respects their order); once they stopped, a grant that came
     * here would otherwise strand the threads of the other processes still waiting.
     */
    private void forwardUnclaimed() {
        try {
            if (held.availablePermits() > 0 && held.tryAcquire(0, TimeUnit.NANOSECONDS)) {
                passOn();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            Main.log("the raw handoff floor could not pass an unclaimed grant on: %s", e);
        }
    }

    private static String channel(int member) {
        return "bench:ring:" + member;
    }

    @Override
    public String keyOf(String name) {
        return name;
    }

    /**
     * Stops listening first, then passes on a grant that came meanwhile: the other processes' threads
     * may still wait for it. (Grants published before the unsubscribe are delivered before its reply.)
     */
    @Override
    public void close() {
        if (unclaimed != null) {
            grants.sync().unsubscribe(channel(member));
            unclaimed.shutdown();
            try {
                unclaimed.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (held.tryAcquire()) {
                passOn();
            }
        }
        grants.close();
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
    }
}
