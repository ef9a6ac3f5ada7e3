package dev.dlock.faults;

import static dev.dlock.faults.Campaign.LEASE_MS;

import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.testing.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Consumer;

/**
 * The faults of a campaign: which kind comes when (drawn from the seed, one at a time) and how each
 * is done. Every fault is recorded in the history as FAULT when it starts and HEALED when it ends.
 */
final class FaultSchedule {

    /** Injects one fault of a kind. */
    interface Injector {
        void inject(String kind) throws Exception;
    }

    /** What a fault does between its FAULT and HEALED records. */
    interface Action {
        void run() throws Exception;
    }

    private final FencedResource resource;
    private final Random random;
    private final Consumer<String> problems;
    private int stops;

    /**
     * @param random   the campaign's seeded draw
     * @param problems told when a phase's clients never got going
     */
    FaultSchedule(FencedResource resource, Random random, Consumer<String> problems) {
        this.resource = resource;
        this.random = random;
        this.problems = problems;
    }

    /** Faults drawn from the seed, one at a time, 1.5 to 3 s apart, until the phase's last 12 s (left for recovery). */
    void run(long phaseMs, List<String> locks, List<String> kinds, Injector injector) throws Exception {
        long start = resource.nowMs();
        long end = start + phaseMs;
        // faults start once the clients work (JVMs start slowly on a busy machine), and not before 5 s
        while (locks.stream().allMatch(lock -> resource.counters().getOrDefault(lock, new long[2])[1] == 0)) {
            if (resource.nowMs() - start > 60_000) {
                problems.accept("no write accepted on " + locks + " within 60 s of the phase's start");
                break;
            }
            Thread.sleep(200);
        }
        Thread.sleep(Math.max(0, start + 5000 - resource.nowMs()));
        end = Math.max(end, resource.nowMs() + 12_000 + 3000);
        List<String> unused = new ArrayList<>(kinds);
        // a phase's failover comes first: the one fault only that topology has
        unused.stream().filter(kind -> kind.endsWith("-failover")).findFirst().ifPresent(failover -> {
            unused.remove(failover);
            unused.add(0, failover);
        });
        boolean first = true;
        while (resource.nowMs() < end - 12_000 && !kinds.isEmpty()) {
            // every kind once before any twice, so a short run still sees them all
            String kind = unused.isEmpty() ? kinds.get(random.nextInt(kinds.size()))
                    : unused.remove(first && unused.get(0).endsWith("-failover") ? 0 : random.nextInt(unused.size()));
            first = false;
            injector.inject(kind);
            Thread.sleep(1500 + random.nextInt(1500));
        }
        long left = end - resource.nowMs();
        if (left > 0) {
            Thread.sleep(left);
        }
    }

    /** Injects the phase's failover the first time it is drawn (the group has one replica to promote), other kinds by {@code others}. */
    Injector failoverOnce(String failover, String target, Action action, Injector others) {
        boolean[] done = {false};
        return kind -> {
            if (!kind.equals(failover)) {
                others.inject(kind);
            } else if (!done[0]) {
                done[0] = true;
                fault(kind, target, action);
            }
        };
    }

    /**
     * The faults on clients, and on one Redis when {@code redis} is given (with {@code operator} for
     * forced releases and {@code partition} to cut the partitioned client off).
     */
    Injector standard(Workers workers, RedisServer redis, LockClient operator, List<String> locks,
                      Optional<NetworkPartition> partition) {
        return kind -> {
            switch (kind) {
                case "client-kill" -> {
                    List<Workers.Worker> running = workers.running();
                    Workers.Worker victim = running.get(random.nextInt(running.size()));
                    fault(kind, victim.proc(), () -> {
                        workers.kill(victim);
                        // a like one takes its place, so the mix of clients stays
                        victim.replacement().get();
                    });
                }
                case "client-stop" -> {
                    List<Workers.Worker> api = workers.running().stream().filter(w -> w.kind().equals("api")).toList();
                    // in turn, so that every API client (the skewed clocks' too) is stopped in a long enough phase
                    Workers.Worker victim = api.get(stops++ % api.size());
                    // past the lease, by little or by much: a little past it is where a client that misjudges
                    // the time (the half-speed clock of the skewed client, were leases judged on it) still believes
                    long stopMs = LEASE_MS * 6 / 5 + random.nextInt((int) (LEASE_MS * 4 / 5));
                    fault(kind, victim.proc(), () -> {
                        Workers.signal(victim.process().pid(), "STOP");
                        Thread.sleep(stopMs);
                        Workers.signal(victim.process().pid(), "CONT");
                    });
                }
                case "server-kill" -> fault(kind, "redis :" + redis.port(), redis::restart);
                case "restart-empty" -> fault(kind, "redis :" + redis.port(), () -> {
                    String dataDir = ((List<?>) redis.command("CONFIG", "GET", "dir")).get(1).toString();
                    redis.kill();
                    deleteAof(Path.of(dataDir));
                    redis.restart();
                });
                case "server-stop" -> {
                    long stopMs = 1000 + random.nextInt(3000);
                    fault(kind, "redis :" + redis.port() + " for " + stopMs + " ms", () -> {
                        redis.pause();
                        Thread.sleep(stopMs);
                        redis.resume();
                    });
                }
                case "forced-release" -> {
                    String lock = locks.get(random.nextInt(locks.size()));
                    fault(kind, lock, () -> {
                        try {
                            operator.getLock(lock).forceUnlock();
                        } catch (LockBackendException e) {
                            // the operator's own link to a Redis just restarted may still be down: the
                            // release may or may not have happened, and the checker judges either
                            System.out.println("note: forced release of '" + lock + "' at " + resource.nowMs()
                                    + " ms: " + e.getMessage().replace('\n', ' '));
                        }
                    });
                }
                case "partition" -> {
                    NetworkPartition p = partition.orElseThrow();
                    long cutMs = LEASE_MS * 2 + random.nextInt((int) LEASE_MS);
                    fault(kind, "netns client for " + cutMs + " ms", () -> {
                        p.cut();
                        try {
                            Thread.sleep(cutMs);
                        } finally {
                            p.heal();
                        }
                    });
                }
                default -> throw new IllegalStateException("fault " + kind + " does not apply here");
            }
        };
    }

    private void fault(String kind, String target, Action action) throws Exception {
        resource.record("FAULT", kind, target);
        action.run();
        resource.record("HEALED", kind, target);
    }

    private static void deleteAof(Path dataDir) throws IOException {
        try (var files = Files.walk(dataDir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                String name = file.getFileName().toString();
                if (name.startsWith("appendonly") || name.endsWith(".aof") || name.endsWith(".rdb")) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }
}
