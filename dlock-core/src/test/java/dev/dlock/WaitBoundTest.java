package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockServers.Topology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A caller's wait bounds the call: with every server of the store stopped (SIGSTOP: connections
 * open, nothing answers), each acquire that takes a wait answers within the wait and
 * {@link LockClient#WAIT_OVERRUN}, saying that its outcome is unknown, on every backend with a
 * server; once the store answers again, nothing of those acquires is left held.
 */
class WaitBoundTest {

    @RegisterExtension
    static final LockServers servers = LockServers.everyBackend(3);

    /** Longer than any bound checked here: a call that waits for it fails the check. */
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration WAIT = Duration.ofMillis(300);
    /** The wait, the overrun (1 s) and 1.5 s for a loaded machine; the calls used to take the command timeout and more. */
    private static final Duration SLACK = LockClient.WAIT_OVERRUN.plus(Duration.ofMillis(1500));
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final ExecutorService callers = Executors.newCachedThreadPool();

    @AfterEach
    void stopCallers() {
        callers.shutdownNow();
    }

    static Stream<Topology> stores() {
        return servers.topologies().stream().filter(Topology::acrossProcesses);
    }

    private static LockClient client(Topology topology) {
        return topology == Topology.REDLOCK
                ? servers.newRedlockClient(COMMAND_TIMEOUT, builder -> builder.commandTimeout(COMMAND_TIMEOUT))
                : servers.newClient(topology, builder -> builder.commandTimeout(COMMAND_TIMEOUT));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stores")
    void everyAcquireWithAWaitAnswersWithinItsWaitAndTheOverrunWhileTheStoreIsStopped(Topology topology)
            throws Exception {
        LockClient client = client(topology);
        ExecutorService holderThread = Executors.newSingleThreadExecutor();
        DistributedLock held = client.getLock("wb-reentry");
        holderThread.submit(() -> held.lock()).get(10, TimeUnit.SECONDS);

        Map<String, Call> calls = new LinkedHashMap<>();
        calls.put("tryLock(wait)", new Call(WAIT, () -> client.getLock("wb-plain").tryLock(WAIT.toMillis(), TimeUnit.MILLISECONDS)));
        calls.put("tryLock() (one attempt)", new Call(Duration.ZERO, () -> client.getLock("wb-once").tryLock()));
        calls.put("fair tryLock(wait, lease)", new Call(WAIT, () -> client.getFairLock("wb-fair").tryLock(WAIT, LEASE)));
        calls.put("write tryLock(wait)", new Call(WAIT,
                () -> client.getReadWriteLock("wb-rw").writeLock().tryLock(WAIT.toMillis(), TimeUnit.MILLISECONDS)));
        calls.put("tryAcquireAsync(wait)", new Call(WAIT, () -> client.getLock("wb-async").tryAcquireAsync(WAIT).get()));
        calls.put("semaphore tryAcquire(wait)", new Call(WAIT, () -> client.getSemaphore("wb-permits", 2).tryAcquire(WAIT)));
        calls.put("multi-lock tryLock(wait, lease)", new Call(WAIT,
                () -> client.getMultiLock("wb-multi-a", "wb-multi-b").tryLock(WAIT, LEASE)));

        Runnable resume = servers.pause(topology);
        Map<String, Future<Outcome>> started = new LinkedHashMap<>();
        Future<Outcome> reentry;
        try {
            calls.forEach((what, call) -> started.put(what, callers.submit(() -> call.run())));
            reentry = holderThread.submit(() -> new Call(WAIT,
                    () -> held.tryLock(WAIT.toMillis(), TimeUnit.MILLISECONDS)).run());
            List<String> answers = new ArrayList<>();
            for (Map.Entry<String, Future<Outcome>> each : started.entrySet()) {
                answers.add(check(each.getKey(), calls.get(each.getKey()).waitTime(), each.getValue(), "acquire outcome unknown"));
            }
            answers.add(check("re-entry tryLock(wait)", WAIT, reentry, "re-entry outcome unknown"));
            System.out.printf("WaitBoundTest on %s, store stopped: %s%n", topology, answers);
        } finally {
            resume.run();
        }
        // the acquires cut short are granted now that the store answers: each is given back
        holderThread.submit(() -> held.unlock()).get(10, TimeUnit.SECONDS);
        holderThread.shutdown();
        servers.assertNothingLeft(topology);
    }

    @Test
    void aMultiLockThatTookANameBeforeTheStoreStoppedAnswersWithinItsWait() throws Exception {
        Topology topology = Topology.ONE_REDIS;
        LockClient client = client(topology);
        LockClient other = client(topology);
        DistributedLock rival = other.getLock("wb-mid-z");
        rival.lock();
        // each takes its first name, then waits for the rival's until its wait ends with the store stopped
        Duration wait = Duration.ofSeconds(2);
        Future<Outcome> threadBound = callers.submit(() -> new Call(wait,
                () -> client.getMultiLock("wb-mid-a", "wb-mid-z").tryLock(wait, LEASE)).run());
        Future<Outcome> handle = callers.submit(() -> new Call(wait,
                () -> client.getMultiLock("wb-mid-z", "wb-mid-c").tryAcquire(wait, LEASE)).run());
        await().atMost(Duration.ofSeconds(10)).until(() -> other.getLock("wb-mid-a").isLocked()
                && other.getLock("wb-mid-c").isLocked());
        Runnable resume = servers.pause(topology);
        try {
            System.out.printf("WaitBoundTest, multi-locks with a name taken, store stopped: %s, %s%n",
                    check("multi-lock tryLock(wait, lease)", wait, threadBound, "acquire outcome unknown"),
                    check("multi-lock tryAcquire(wait, lease)", wait, handle, "acquire outcome unknown"));
        } finally {
            resume.run();
        }
        rival.unlock();
        servers.assertNothingLeft(topology);
    }

    /** Asserts the call answered in time, with a LockBackendException whose message says {@code known}. */
    private static String check(String what, Duration wait, Future<Outcome> answer, String known) throws Exception {
        Outcome outcome = answer.get(30, TimeUnit.SECONDS);
        assertThat(outcome.took()).as(what + " answered within its wait of " + wait.toMillis() + " ms and "
                + SLACK.toMillis() + " ms (it answered " + outcome.answer() + ")").isLessThan(wait.plus(SLACK));
        assertThat(outcome.answer()).as(what).isInstanceOf(LockBackendException.class);
        assertThat(((Throwable) outcome.answer()).getMessage()).as(what).contains(known).contains(" did not answer within the wait of ");
        return what + " " + outcome.took().toMillis() + " ms";
    }

    /** One acquire of the API, and the wait it was given. */
    private record Call(Duration waitTime, Callable<Object> acquire) {
        Outcome run() {
            long start = System.nanoTime();
            Object answer;
            try {
                answer = acquire.call();
            } catch (ExecutionException e) {
                answer = e.getCause();
            } catch (Exception e) {
                answer = e;
            }
            return new Outcome(Duration.ofNanos(System.nanoTime() - start), answer);
        }
    }

    /** How long a call took and what it answered: its value or what it threw. */
    private record Outcome(Duration took, Object answer) {
    }
}
