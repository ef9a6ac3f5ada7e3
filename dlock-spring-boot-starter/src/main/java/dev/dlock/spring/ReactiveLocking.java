package dev.dlock.spring;

import dev.dlock.DistributedLock;
import dev.dlock.LockBackendException;
import dev.dlock.LockBusyException;
import dev.dlock.LockHandle;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@link WithLock} on a method returning a {@link Mono} or {@link Flux}: the lock is taken when
 * the returned publisher is subscribed to, held through a {@link LockHandle} (which belongs to no
 * thread) while the method's publisher runs, and released when it completes, fails or is
 * cancelled; a subscription cancelled while it waits for the lock abandons the wait. Nothing
 * blocks. Loaded only for such methods.
 */
final class ReactiveLocking {

    private ReactiveLocking() {
    }

    /** The method's publisher, run under the lock. */
    static Object locked(MethodInvocation invocation, LockedMethod locked, DistributedLock lock, String name,
                         OutageLog outages) {
        String method = LockedMethod.describe(locked.method());
        Mono<LockHandle> handle = acquire(lock, locked)
                .onErrorResume(LockBackendException.class, e -> {
                    if (OutageLog.isRefusal(e)) {
                        return Mono.error(e);
                    }
                    if (!locked.skipOnOutage()) {
                        outages.failed(method, name, e);
                        return Mono.error(WithLockInterceptor.naming(name, e));
                    }
                    outages.skipped(method, name, e);
                    return Mono.empty();
                })
                .flatMap(acquired -> {
                    outages.answered();
                    if (acquired.isPresent()) {
                        return Mono.just(acquired.get());
                    }
                    if (locked.onBusy() == WithLock.OnBusy.SKIP) {
                        return Mono.empty();
                    }
                    return Mono.error(new LockBusyException(name, locked.waitTime(), "lock '" + name + "' stayed busy for "
                            + (locked.waitTime().isZero() ? "one attempt (waitTime 0)"
                            : "the whole waitTime of " + locked.waitTime().toMillis() + " ms") + "; " + method
                            + " not subscribed to"));
                });
        if (locked.method().getReturnType() == Mono.class) {
            return Mono.usingWhen(handle, held -> Mono.from(proceed(invocation)),
                    held -> release(held, locked, outages, true), (held, error) -> release(held, locked, outages, false),
                    held -> release(held, locked, outages, false));
        }
        return Flux.usingWhen(handle, held -> proceed(invocation),
                held -> release(held, locked, outages, true), (held, error) -> release(held, locked, outages, false),
                held -> release(held, locked, outages, false));
    }

    /**
     * The acquisition, started at subscription. A cancelled subscription (a {@code timeout()}
     * downstream, a client gone) cancels the acquire's own future, which abandons the wait; a
     * future derived from it ({@code thenApply}) would be cancelled alone while the acquire went on
     * and took the lock for nobody. A handle that arrives just as the subscription is cancelled
     * is discarded by Reactor, and given back here.
     */
    private static Mono<Optional<LockHandle>> acquire(DistributedLock lock, LockedMethod locked) {
        return Mono.defer(() -> {
            if (locked.waitTime() == null) {
                CompletableFuture<LockHandle> acquiring = locked.leaseTime() == null ? lock.acquireAsync()
                        : lock.acquireAsync(locked.leaseTime());
                return Mono.fromFuture(acquiring).map(Optional::of);
            }
            return Mono.fromFuture(locked.leaseTime() == null ? lock.tryAcquireAsync(locked.waitTime())
                    : lock.tryAcquireAsync(locked.waitTime(), locked.leaseTime()));
        }).doOnDiscard(Object.class, ReactiveLocking::releaseUnwanted);
    }

    private static void releaseUnwanted(Object discarded) {
        if (discarded instanceof LockHandle held) {
            held.releaseAsync();
        } else if (discarded instanceof Optional<?> acquired && acquired.orElse(null) instanceof LockHandle held) {
            held.releaseAsync();
        }
    }

    @SuppressWarnings("unchecked")
    private static Publisher<Object> proceed(MethodInvocation invocation) {
        try {
            Object publisher = invocation.proceed();
            return publisher == null ? Mono.empty() : (Publisher<Object>) publisher;
        } catch (Throwable e) {
            return Mono.error(e);
        }
    }

    /**
     * Gives the hold back. A lost hold fails the publisher after it completed normally (the work
     * was not exclusive), as the blocking advice throws; a release Redis does not answer is left
     * to the lease.
     */
    private static Mono<Void> release(LockHandle held, LockedMethod locked, OutageLog outages, boolean completed) {
        return Mono.defer(() -> Mono.fromFuture(locked.holdAtLeast() == null ? held.releaseAsync()
                        : held.releaseHoldingAtLeastAsync(locked.holdAtLeast())))
                .onErrorResume(LockBackendException.class, e -> {
                    outages.releaseFailed(held.lockName(), e);
                    return Mono.empty();
                })
                .onErrorResume(e -> !completed, e -> Mono.empty());
    }
}
