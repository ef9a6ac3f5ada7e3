package dev.dlock.internal.memory;

import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.AcquireRequest;
import dev.dlock.internal.store.HeldLock;
import dev.dlock.internal.store.LockHolds;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockState;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.Renewal;
import dev.dlock.internal.store.WakeUpSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The lock kinds' rules on the in-memory state, the same as the Redis scripts': many readers or one
 * exclusive holder; a waiting writer's mark holds new readers back; the fair lock grants in request
 * order to live waiters; a semaphore grants up to its permit count; every fresh hold gets a token
 * above all before. Each method decides under the space's monitor and publishes after it.
 */
public final class MemoryRules {

    private final MemorySpace space;

    public MemoryRules(MemorySpace space) {
        this.space = space;
    }

    /** A message to publish once the monitor is left. */
    private record Message(String channel, String text) {
    }

    private void publish(List<Message> messages) {
        messages.forEach(message -> space.publish(message.channel(), message.text()));
    }

    public AcquireReply acquire(LockTarget target, LockKind kind, AcquireRequest request, long startNanos) {
        synchronized (space) {
            long now = System.nanoTime();
            MemoryLock lock = space.lock(target.key());
            lock.expire(now);
            long leaseEnd = now + TimeUnit.MILLISECONDS.toNanos(request.leaseMs());
            long validUntil = startNanos + TimeUnit.MILLISECONDS.toNanos(request.leaseMs());
            if (request.reentry()) {
                MemoryLock.Hold held = lock.holdOf(kind, request.owner());
                if (held == null) {
                    space.tidy(target.key());
                    return new AcquireReply.LostOnReentry();
                }
                held.count++;
                held.endNanos = leaseEnd;
                return new AcquireReply.Granted(held.token, held.count, validUntil);
            }
            if (kind == LockKind.PERMIT && lock.permits > 0 && lock.permits != request.permits()) {
                return new AcquireReply.PermitsDiffer(lock.permits);
            }
            long blockedFor = blockedNanos(lock, kind, request, now);
            if (blockedFor > 0) {
                long ticket = 0;
                if (request.mayWait() && !request.waiterId().isEmpty()) {
                    ticket = wait(lock, kind, request, now);
                }
                space.tidy(target.key());
                return new AcquireReply.Busy(Math.max(1, TimeUnit.NANOSECONDS.toMillis(blockedFor)), false, ticket);
            }
            MemoryLock.Hold hold = new MemoryLock.Hold(kind, request.owner(), space.nextToken(), request.holder(),
                    now, leaseEnd);
            if (MemoryLock.isShared(kind)) {
                lock.shared.put(request.owner(), hold);
                if (kind == LockKind.PERMIT) {
                    lock.permits = request.permits();
                }
            } else {
                lock.exclusive = hold;
            }
            lock.queue.remove(request.waiterId());
            lock.tickets.remove(request.waiterId());
            lock.writerMarks.remove(request.waiterId());
            return new AcquireReply.Granted(hold.token, 1, validUntil);
        }
    }

    /** How long what refuses this attempt lasts at most (nanos), or 0 when nothing does. */
    private static long blockedNanos(MemoryLock lock, LockKind kind, AcquireRequest request, long now) {
        if (lock.exclusive != null) {
            boolean downgrade = kind == LockKind.READ && lock.exclusive.kind == LockKind.WRITE
                    && lock.exclusive.owner.equals(request.downgradeFrom());
            if (!downgrade) {
                return lock.exclusive.endNanos - now;
            }
        }
        switch (kind) {
            case READ:
                if (lock.permits > 0) {
                    // a semaphore's permits hold the name
                    return earliestEnd(lock, now);
                }
                if (!lock.writerMarks.isEmpty() && request.downgradeFrom().isEmpty()) {
                    return lock.writerMarks.values().stream().mapToLong(deadline -> deadline - now).max().orElse(1);
                }
                return 0;
            case PERMIT:
                boolean readers = lock.permits == 0 && !lock.shared.isEmpty();
                return readers || lock.shared.size() >= request.permits() ? earliestEnd(lock, now) : 0;
            case FAIR:
                if (!lock.shared.isEmpty()) {
                    return earliestEnd(lock, now);
                }
                for (Map.Entry<String, Long> ahead : lock.queue.entrySet()) {
                    // the first live waiter goes first
                    return ahead.getKey().equals(request.waiterId()) ? 0 : ahead.getValue() - now;
                }
                return 0;
            default:
                return lock.shared.isEmpty() ? 0 : earliestEnd(lock, now);
        }
    }

    private static long earliestEnd(MemoryLock lock, long now) {
        return lock.shared.values().stream().mapToLong(hold -> hold.endNanos - now).min().orElse(1);
    }

    /** Queues a refused waiter (fair lock) or marks it (writer): its ticket, or 0. */
    private long wait(MemoryLock lock, LockKind kind, AcquireRequest request, long now) {
        long deadline = now + TimeUnit.MILLISECONDS.toNanos(request.waiterTimeoutMs());
        if (kind == LockKind.FAIR) {
            lock.queue.put(request.waiterId(), deadline);
            return lock.tickets.computeIfAbsent(request.waiterId(),
                    id -> request.ticket() > 0 ? request.ticket() : space.nextToken());
        }
        if (kind == LockKind.WRITE) {
            lock.writerMarks.put(request.waiterId(), deadline);
        }
        return 0;
    }

    public long release(LockTarget target, LockKind kind, String owner) {
        List<Message> messages = new ArrayList<>();
        long left;
        synchronized (space) {
            MemoryLock lock = space.existing(target.key(), System.nanoTime());
            MemoryLock.Hold hold = lock == null ? null : lock.holdOf(kind, owner);
            if (hold == null) {
                return -1;
            }
            left = --hold.count;
            if (left == 0) {
                lock.drop(hold);
                messages.add(new Message(target.channel(), Long.toString(hold.token)));
                space.tidy(target.key());
            }
        }
        publish(messages);
        return left;
    }

    public void abandon(LockTarget target, String owner) {
        List<Message> messages = new ArrayList<>();
        synchronized (space) {
            MemoryLock lock = space.existing(target.key(), System.nanoTime());
            if (lock == null) {
                return;
            }
            for (MemoryLock.Hold hold : lock.holds()) {
                if (hold.owner.equals(owner) && lock.drop(hold)) {
                    messages.add(new Message(target.channel(), Long.toString(hold.token)));
                }
            }
            space.tidy(target.key());
        }
        publish(messages);
    }

    public void leave(LockTarget target, String waiterId) {
        List<Message> messages = new ArrayList<>();
        synchronized (space) {
            MemoryLock lock = space.existing(target.key(), System.nanoTime());
            if (lock == null) {
                return;
            }
            boolean left = lock.queue.remove(waiterId) != null | lock.writerMarks.remove(waiterId) != null;
            lock.tickets.remove(waiterId);
            if (left) {
                // the waiters behind it (or the readers it held back) may go now
                messages.add(new Message(target.channel(), Long.toString(space.nextToken())));
            }
            space.tidy(target.key());
        }
        publish(messages);
    }

    public boolean forceRelease(LockTarget target, String keyPrefix) {
        List<Message> messages = new ArrayList<>();
        synchronized (space) {
            MemoryLock lock = space.existing(target.key(), System.nanoTime());
            if (lock == null || !lock.isHeld()) {
                return false;
            }
            long highest = 0;
            for (MemoryLock.Hold hold : lock.holds()) {
                lock.drop(hold);
                highest = Math.max(highest, hold.token);
                int colon = hold.owner.indexOf(':');
                if (colon > 0) {
                    messages.add(new Message(WakeUpSource.clientChannel(keyPrefix, hold.owner.substring(0, colon)),
                            target.key() + "\t" + hold.owner));
                }
            }
            messages.add(new Message(target.channel(), Long.toString(highest)));
            space.tidy(target.key());
        }
        publish(messages);
        return true;
    }

    public Renewal[] renew(List<HeldLock> holds, long leaseMs) {
        Renewal[] outcome = new Renewal[holds.size()];
        synchronized (space) {
            long now = System.nanoTime();
            for (int i = 0; i < outcome.length; i++) {
                HeldLock held = holds.get(i);
                MemoryLock lock = space.existing(held.target().key(), now);
                MemoryLock.Hold hold = lock == null ? null : lock.holdOf(held.kind(), held.owner());
                if (hold == null) {
                    outcome[i] = Renewal.GONE;
                } else {
                    hold.endNanos = now + TimeUnit.MILLISECONDS.toNanos(leaseMs);
                    outcome[i] = Renewal.RENEWED;
                }
            }
        }
        return outcome;
    }

    public LockState inspect(LockTarget target, LockKind kind) {
        synchronized (space) {
            long now = System.nanoTime();
            MemoryLock lock = space.existing(target.key(), now);
            if (lock == null) {
                return LockState.FREE;
            }
            String view = kind.mode();
            if (!view.equals("r") && lock.exclusive != null) {
                MemoryLock.Hold hold = lock.exclusive;
                return new LockState(hold.owner, hold.count, hold.token, hold.holder, millis(hold.endNanos - now),
                        millis(now - hold.startNanos));
            }
            if (view.equals("w") || lock.shared.isEmpty()) {
                return LockState.FREE;
            }
            Map<String, MemoryLock.Hold> byOwner = new LinkedHashMap<>(lock.shared);
            MemoryLock.Hold first = byOwner.values().stream().min(Comparator.comparing(hold -> hold.owner)).orElseThrow();
            int count = byOwner.values().stream().mapToInt(hold -> hold.count).sum();
            long token = byOwner.values().stream().mapToLong(hold -> hold.token).max().orElse(0);
            long end = byOwner.values().stream().mapToLong(hold -> hold.endNanos - now).max().orElse(0);
            long oldest = byOwner.values().stream().mapToLong(hold -> now - hold.startNanos).max().orElse(0);
            return new LockState("readers", count, token, first.holder, millis(end), millis(oldest));
        }
    }

    public LockHolds holds(LockTarget target) {
        synchronized (space) {
            long now = System.nanoTime();
            MemoryLock lock = space.existing(target.key(), now);
            if (lock == null) {
                return new LockHolds(0, List.of());
            }
            List<LockHolds.HoldState> holds = new ArrayList<>();
            lock.holds().forEach(hold -> holds.add(state(hold, hold != lock.exclusive, now)));
            holds.sort(Comparator.comparingLong(LockHolds.HoldState::token));
            return new LockHolds(lock.permits, holds);
        }
    }

    private static LockHolds.HoldState state(MemoryLock.Hold hold, boolean shared, long now) {
        return new LockHolds.HoldState(hold.owner, hold.count, hold.token, hold.holder, millis(hold.endNanos - now), shared);
    }

    private static long millis(long nanos) {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(nanos));
    }
}
