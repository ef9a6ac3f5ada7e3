package dev.dlock.cli.exec;

import dev.dlock.DistributedLock;
import dev.dlock.DistributedSemaphore;
import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.LockHandle;
import dev.dlock.LockInfo;
import dev.dlock.cli.common.Durations;
import dev.dlock.cli.common.LockInfoView;
import dev.dlock.cli.common.UsageException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What {@code exec} holds while its command runs, from its options: the plain lock (no option),
 * the fair lock ({@code --fair}), the read or write side of a read-write lock ({@code --shared},
 * {@code --exclusive}: many readers or one writer, as {@code flock -s} / {@code flock -x}), or a
 * permit of a semaphore ({@code --permits N}: at most N runs at once).
 */
final class ExecLock {

    private final String description;
    private final DistributedLock lock;
    private final DistributedSemaphore semaphore;
    /** NAME's plain lock, whose view shows a holder of any kind: for who keeps another kind out. */
    private DistributedLock anyHolder;

    private ExecLock(String description, DistributedLock lock, DistributedSemaphore semaphore) {
        this.description = description;
        this.lock = lock;
        this.semaphore = semaphore;
    }

    /**
     * The options that choose the kind, checked: at most one of them, and a permit count in range.
     *
     * @param permits {@code --permits}, or null
     * @throws UsageException the options exclude each other, or the count is out of range
     */
    static void check(Integer permits, boolean shared, boolean exclusive, boolean fair) {
        List<String> given = new ArrayList<>();
        if (permits != null) {
            given.add("--permits");
        }
        if (shared) {
            given.add("--shared");
        }
        if (exclusive) {
            given.add("--exclusive");
        }
        if (fair) {
            given.add("--fair");
        }
        if (given.size() > 1) {
            throw new UsageException(String.join(" and ", given) + " exclude each other: give at most one of "
                    + "--permits N (a semaphore), --shared or --exclusive (a read-write lock), or --fair (a fair lock)");
        }
        if (permits != null && (permits < 1 || permits > LockClient.MAX_PERMITS)) {
            throw new UsageException("--permits: from 1 to " + LockClient.MAX_PERMITS + ", got " + permits);
        }
    }

    /** The lock or semaphore of NAME that the (checked) options choose. */
    static ExecLock of(LockClient client, String name, Integer permits, boolean shared, boolean exclusive,
                       boolean fair) {
        ExecLock chosen = choose(client, name, permits, shared, exclusive, fair);
        chosen.anyHolder = client.getLock(name);
        return chosen;
    }

    private static ExecLock choose(LockClient client, String name, Integer permits, boolean shared, boolean exclusive,
                                   boolean fair) {
        try {
            if (permits != null) {
                return new ExecLock("semaphore '" + name + "' (" + LockInfoView.permits(permits) + ")", null,
                        client.getSemaphore(name, permits));
            }
            if (shared) {
                return new ExecLock("shared lock '" + name + "'", client.getReadWriteLock(name).readLock(), null);
            }
            if (exclusive) {
                return new ExecLock("exclusive lock '" + name + "'", client.getReadWriteLock(name).writeLock(), null);
            }
            if (fair) {
                return new ExecLock("fair lock '" + name + "'", client.getFairLock(name), null);
            }
            return new ExecLock("lock '" + name + "'", client.getLock(name), null);
        } catch (IllegalArgumentException e) {
            throw new UsageException("bad lock name: " + e.getMessage(), e);
        }
    }

    /** {@code lock 'x'}, {@code semaphore 'x' (3 permits)}, ... for messages. */
    String describe() {
        return description;
    }

    CompletableFuture<LockHandle> acquireAsync() {
        return semaphore != null ? semaphore.acquireAsync() : lock.acquireAsync();
    }

    CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait) {
        return semaphore != null ? semaphore.tryAcquireAsync(wait) : lock.tryAcquireAsync(wait);
    }

    /**
     * Who holds it now, for the message when it was not acquired in time: {@code ": held by ..."}, or
     * "" when nobody does (any more) or Redis does not answer.
     */
    String whoHolds() {
        try {
            LockInfo own = semaphore != null ? semaphore.info() : lock.info();
            // a kind's own view may not show a holder of another kind (a plain lock keeping a --shared run out)
            LockInfo info = own.holds().isEmpty() && own.holder().isEmpty() ? anyHolder.info() : own;
            if (info.holds().size() == 1) {
                return ": held by " + LockInfoView.holder(info.holds().get(0).holder()) + ", lease left "
                        + Durations.format(info.holds().get(0).remainingLease());
            }
            if (info.holds().size() > 1) {
                return ": held by " + info.holds().size() + " holders, the first " + LockInfoView.holder(
                        info.holds().get(0).holder()) + ", lease left " + Durations.format(info.holds().get(0).remainingLease());
            }
            return info.holder().map(holder -> ": held by " + LockInfoView.holder(holder) + ", lease left "
                    + Durations.format(info.remainingLease())).orElse("");
        } catch (LockBackendException e) {
            return "";
        }
    }
}
