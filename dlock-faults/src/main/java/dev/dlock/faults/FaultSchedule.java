package dev.dlock.faults;

import static dev.dlock.faults.Campaign.LEASE_MS;

import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.testing.PgBouncer;
import dev.dlock.testing.PostgresServer;
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
import java.util.function.Supplier;

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

    /**
     * Faults drawn from the seed, one at a time, 1.5 to 3 s apart, until the phase's last 12 s (left
     * for recovery); every kind at least once, even when that takes the phase past its share (clients
     * slow to start on a busy machine), and then 12 s more.
     */
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
        // a phase's failovers come first: the faults only that topology has
        List<String> failovers = new ArrayList<>(unused.stream().filter(kind -> kind.endsWith("-failover")).toList());
        unused.removeAll(failovers);
        long lastFaultMs = resource.nowMs();
        while (!kinds.isEmpty() && (resource.nowMs() < end - 12_000 || !failovers.isEmpty() || !unused.isEmpty())) {
            // every kind once before any twice, so a short run still sees them all
            String kind = !failovers.isEmpty() ? failovers.remove(0)
                    : unused.isEmpty() ? kinds.get(random.nextInt(kinds.size()))
                    : unused.remove(random.nextInt(unused.size()));
            injector.inject(kind);
            lastFaultMs = resource.nowMs();
            Thread.sleep(1500 + random.nextInt(1500));
        }
        long left = Math.max(end, lastFaultMs + 12_000) - resource.nowMs();
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
     * Injects the phase's failover each time it is drawn, after {@code prepare} (which makes a new
     * replica where the last failover promoted one) outside the fault's record, other kinds by {@code others}.
     */
    Injector failoverEach(String failover, Supplier<String> target, Action prepare, Action action, Injector others) {
        return kind -> {
            if (!kind.equals(failover)) {
                others.inject(kind);
                return;
            }
            prepare.run();
            fault(kind, target.get(), action);
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
                case "client-kill", "client-stop" -> onClient(kind, workers);
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
                case "forced-release" -> forcedRelease(operator, locks);
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

    /**
     * The faults on clients, and on one PostgreSQL when {@code server} is given (with {@code bouncer},
     * the PgBouncer in front of it, and {@code operator} for forced releases).
     */
    Injector postgres(Workers workers, PostgresServer server, PgBouncer bouncer, LockClient operator, List<String> locks) {
        return kind -> {
            String target = server == null ? "" : "postgres :" + server.port();
            switch (kind) {
                case "client-kill", "client-stop" -> onClient(kind, workers);
                case "pg-kill" -> fault(kind, target, () -> {
                    server.kill();
                    server.startAgain();
                });
                case "pg-stop" -> {
                    long stopMs = 1000 + random.nextInt(3000);
                    fault(kind, target + " for " + stopMs + " ms", () -> {
                        server.pause();
                        Thread.sleep(stopMs);
                        server.resume();
                    });
                }
                case "pg-restart" -> fault(kind, target, server::restartFast);
                case "pg-terminate" -> fault(kind, "dlock's sessions on " + target, () ->
                        // the clients' connections (PgBouncer's too) name themselves 'dlock'
                        server.sql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                                + " WHERE application_name = 'dlock' AND pid <> pg_backend_pid()"));
                case "forced-release" -> forcedRelease(operator, locks);
                case "bouncer-restart" -> fault(kind, "pgbouncer :" + bouncer.port(), bouncer::restart);
                default -> throw new IllegalStateException("fault " + kind + " does not apply here");
            }
        };
    }

    private void onClient(String kind, Workers workers) throws Exception {
        if (kind.equals("client-kill")) {
            List<Workers.Worker> running = workers.running();
            Workers.Worker victim = running.get(random.nextInt(running.size()));
            fault(kind, victim.proc(), () -> {
                workers.kill(victim);
                // a like one takes its place, so the mix of clients stays
                victim.replacement().get();
            });
            return;
        }
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

    private void forcedRelease(LockClient operator, List<String> locks) throws Exception {
        String lock = locks.get(random.nextInt(locks.size()));
        fault("forced-release", lock, () -> {
            try {
                operator.getLock(lock).forceUnlock();
            } catch (LockBackendException e) {
                // the operator's own link to a server just restarted may still be down: the
                // release may or may not have happened, and the checker judges either
                System.out.println("note: forced release of '" + lock + "' at " + resource.nowMs()
                        + " ms: " + e.getMessage().replace('\n', ' '));
            }
        });
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
