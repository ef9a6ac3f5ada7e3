package dev.dlock.cli.doctor;

import dev.dlock.DistributedLock;
import dev.dlock.DistributedReadWriteLock;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.LockHandle;
import dev.dlock.cli.common.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The checks of {@code dlock doctor} that take real locks under the prefix, as an application's
 * client would: every lock kind's scripts run with this user's permissions (the ACL), and a
 * release wakes a waiter of another client through pub/sub, timed end to end.
 */
final class DoctorLockChecks {

    /** A waiter not woken within this waits for the lease instead: pub/sub is not delivering. */
    private static final Duration WAKE_BOUND = Duration.ofSeconds(3);
    private static final Duration HOLDER_LEASE = Duration.ofSeconds(30);

    private DoctorLockChecks() {
    }

    static List<DoctorCheck> all(Supplier<LockClientBuilder> builders, String label) {
        List<DoctorCheck> checks = new ArrayList<>();
        String probe = "doctor-" + UUID.randomUUID().toString().substring(0, 8);
        LockClient client;
        try {
            client = builders.get().commandTimeout(DoctorNode.TIMEOUT).build();
        } catch (RuntimeException e) {
            checks.add(DoctorCheck.fail("acl", label, "a client cannot start: " + e.getMessage()));
            return checks;
        }
        try (client) {
            checks.add(lockKinds(client, probe, label));
            try (LockClient other = builders.get().commandTimeout(DoctorNode.TIMEOUT).build()) {
                checks.add(wakeUp(client, other, probe + "-wake", label));
            } catch (RuntimeException e) {
                checks.add(DoctorCheck.fail("pubsub", label, "a second client cannot start: " + e.getMessage()));
            }
        }
        return checks;
    }

    private static DoctorCheck lockKinds(LockClient client, String probe, String label) {
        String kind = "reentrant lock";
        try {
            DistributedLock reentrant = client.getLock(probe + "-reentrant");
            if (!reentrant.tryLock()) {
                throw new IllegalStateException("refused although nobody held it");
            }
            kind = "inspection of a held lock (dlock status, list)";
            reentrant.info();
            client.listLocks(probe + "*");
            kind = "reentrant lock's release";
            reentrant.unlock();
            kind = "fair lock";
            once(client.getFairLock(probe + "-fair"));
            DistributedReadWriteLock readWrite = client.getReadWriteLock(probe + "-rw");
            kind = "read lock";
            once(readWrite.readLock());
            kind = "write lock";
            once(readWrite.writeLock());
            kind = "semaphore";
            Optional<LockHandle> permit = client.getSemaphore(probe + "-semaphore", 1).tryAcquire();
            if (permit.isEmpty()) {
                throw new IllegalStateException("its permit was refused although nobody held it");
            }
            permit.get().release();
        } catch (RuntimeException e) {
            return DoctorCheck.fail("acl", label, "the " + kind + " failed: " + e.getMessage());
        }
        return DoctorCheck.ok("acl", label, "every lock kind taken, inspected and released (EVALSHA, each kind's "
                + "scripts, SCAN, the keys under the prefix)");
    }

    private static void once(DistributedLock lock) {
        if (!lock.tryLock()) {
            throw new IllegalStateException("refused although nobody held it");
        }
        lock.unlock();
    }

    private static DoctorCheck wakeUp(LockClient holderClient, LockClient waiterClient, String name, String label) {
        LockHandle held;
        try {
            held = holderClient.getLock(name).tryAcquireAsync(Duration.ZERO, HOLDER_LEASE).get(5, TimeUnit.SECONDS)
                    .orElseThrow(() -> new IllegalStateException("refused although nobody held it"));
        } catch (Exception e) {
            return DoctorCheck.fail("pubsub", label, "could not take the probe lock: " + e.getMessage());
        }
        CompletableFuture<Optional<LockHandle>> waiter =
                waiterClient.getLock(name).tryAcquireAsync(WAKE_BOUND.plusSeconds(5));
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            // the waiter is subscribed once the holder's lock shows a waiting client
            while (holderClient.getLock(name).info().waitingClients() == 0 && !waiter.isDone()) {
                if (System.nanoTime() > deadline) {
                    return DoctorCheck.fail("pubsub", label, "the waiter never showed as waiting");
                }
                Thread.sleep(5);
            }
            long released = System.nanoTime();
            held.release();
            Optional<LockHandle> woken = waiter.get(WAKE_BOUND.toMillis(), TimeUnit.MILLISECONDS);
            long wokenAfter = System.nanoTime() - released;
            woken.ifPresent(LockHandle::release);
            if (woken.isEmpty()) {
                return DoctorCheck.fail("pubsub", label, "the waiter was not granted the released lock");
            }
            return DoctorCheck.ok("pubsub", label, "a waiter of another client got the lock "
                    + DoctorServerChecks.millis(wokenAfter) + " after its release (release message delivered)");
        } catch (java.util.concurrent.TimeoutException e) {
            return DoctorCheck.fail("pubsub", label, "a waiter of another client was not woken within "
                    + Durations.format(WAKE_BOUND) + " of the release: release messages do not arrive (SUBSCRIBE or "
                    + "PUBLISH refused, or a proxy that drops pub/sub), so waiters sit out each lease");
        } catch (Exception e) {
            return DoctorCheck.fail("pubsub", label, "the waiter failed: " + e.getMessage());
        } finally {
            waiter.cancel(true);
            if (held.isValid()) {
                held.release();
            }
        }
    }
}
