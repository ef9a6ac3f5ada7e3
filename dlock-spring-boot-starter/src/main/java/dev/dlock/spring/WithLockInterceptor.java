package dev.dlock.spring;

import dev.dlock.DistributedLock;
import dev.dlock.LockBackendException;
import dev.dlock.LockBusyException;
import dev.dlock.LockClient;
import dev.dlock.LockInterruptedException;
import dev.dlock.LockKind;
import dev.dlock.LockLostException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;

/**
 * The advice of {@link WithLock}: takes the lock, calls the method, releases the lock. The
 * {@link LockClient} is looked up at the first call, so the advice does not pull the client
 * (and its connection) into the creation of the proxies.
 */
final class WithLockInterceptor implements MethodInterceptor {
    private static final Logger log = LoggerFactory.getLogger(WithLockInterceptor.class);

    private final WithLockClient client;
    private final LockedMethods methods;
    private final OutageLog outages = new OutageLog();

    WithLockInterceptor(WithLockClient client, LockedMethods methods) {
        this.client = client;
        this.methods = methods;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null ? AopUtils.getTargetClass(target) : invocation.getMethod().getDeclaringClass();
        LockedMethod locked = methods.get(invocation.getMethod(), targetClass);
        String name = methods.lockName(locked, target, invocation.getArguments());
        String method = LockedMethod.describe(locked.method());
        DistributedLock lock = lockOf(client.forCall(method), locked.kind(), name);
        if (locked.reactive()) {
            return ReactiveLocking.locked(invocation, locked, lock, name, outages);
        }
        boolean acquired;
        try {
            acquired = acquire(lock, locked);
        } catch (InterruptedException e) {
            throw interrupted(locked, name, e);
        } catch (LockBackendException e) {
            if (OutageLog.isRefusal(e)) {
                throw e;   // a refusal (bad credentials, no schema) is no outage: never skipped, never a 503
            }
            if (!locked.skipOnOutage()) {
                outages.failed(method, name, e);
                throw naming(name, e);
            }
            outages.skipped(method, name, e);
            return locked.skippedResult();
        }
        outages.answered();
        if (!acquired) {
            return busy(locked, name, "lock '" + name + "' stayed busy for " + waitText(locked.waitTime()));
        }
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable failure) {
            release(lock, locked, failure);
            throw failure;
        }
        release(lock, locked, null);
        return result;
    }

    /**
     * The failure with the lock's name, which the web answer shows: some failures of an acquire
     * (the wait ending in an outage) carry none, and the call knows it.
     */
    static LockBackendException naming(String name, LockBackendException failure) {
        return failure.lockName().isPresent() ? failure
                : new LockBackendException(failure.getMessage(), failure, name, failure.nodeErrors());
    }

    private static DistributedLock lockOf(LockClient locks, LockKind kind, String name) {
        return switch (kind) {
            case REENTRANT -> locks.getLock(name);
            case FAIR -> locks.getFairLock(name);
            case READ -> locks.getReadWriteLock(name).readLock();
            case WRITE -> locks.getReadWriteLock(name).writeLock();
            case PERMIT -> throw new IllegalStateException("kind PERMIT is refused when the method is parsed");
        };
    }

    /**
     * @return whether the lock is held; false: busy for the whole wait
     * @throws LockBackendException Redis failed: the lock's state is unknown, which is not "busy"
     * @throws InterruptedException the wait was interrupted
     */
    private static boolean acquire(DistributedLock lock, LockedMethod locked) throws InterruptedException {
        if (locked.waitTime() == null) {
            if (locked.leaseTime() == null) {
                lock.lock();
            } else {
                lock.lock(locked.leaseTime());
            }
            return true;
        }
        return locked.leaseTime() == null ? lock.tryLock(locked.waitTime().toNanos(), TimeUnit.NANOSECONDS)
                : lock.tryLock(locked.waitTime(), locked.leaseTime());
    }

    /**
     * An interrupted wait is an interrupt, whatever {@code onBusy} says (not "busy", not skipped): the
     * {@link InterruptedException} itself when the method declares it, else the interrupt flag set again
     * and {@link LockInterruptedException}.
     */
    private static Exception interrupted(LockedMethod locked, String name, InterruptedException interrupt) {
        boolean declared = Arrays.stream(locked.method().getExceptionTypes())
                .anyMatch(type -> type.isAssignableFrom(InterruptedException.class));
        if (declared) {
            return interrupt;
        }
        Thread.currentThread().interrupt();
        return new LockInterruptedException("interrupted while waiting up to " + locked.waitTime() + " for lock '"
                + name + "'; " + LockedMethod.describe(locked.method()) + " not called", interrupt);
    }

    /** What a busy call returns: the skipped result, or LockBusyException. */
    private static Object busy(LockedMethod locked, String name, String why) {
        String message = why + "; " + LockedMethod.describe(locked.method())
                + (locked.onBusy() == WithLock.OnBusy.SKIP ? " skipped" : " not called");
        if (locked.onBusy() == WithLock.OnBusy.SKIP) {
            log.debug(message);
            return locked.skippedResult();
        }
        throw new LockBusyException(name, locked.waitTime(), message);
    }

    private static String waitText(Duration wait) {
        return wait.isZero() ? "one attempt (waitTime 0)" : "the whole waitTime of " + wait.toMillis() + " ms";
    }

    private void release(DistributedLock lock, LockedMethod locked, Throwable methodFailure) {
        try {
            if (locked.holdAtLeast() == null) {
                lock.unlock();
            } else {
                lock.unlockHoldingAtLeast(locked.holdAtLeast());
            }
        } catch (LockLostException e) {
            if (methodFailure == null) {
                throw e;
            }
            methodFailure.addSuppressed(e);
        } catch (LockBackendException e) {
            outages.releaseFailed(lock.name(), e);
            if (methodFailure != null) {
                methodFailure.addSuppressed(e);
            }
        }
    }
}
