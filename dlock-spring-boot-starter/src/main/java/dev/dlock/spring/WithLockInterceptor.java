package dev.dlock.spring;

import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.LockLostException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;

/**
 * The advice of {@link WithLock}: takes the lock, calls the method, releases the lock.
 * The {@link LockClient} is looked up at the first call, so the advice does not pull the client
 * (and its connection) into the creation of the proxies.
 */
final class WithLockInterceptor implements MethodInterceptor {
    private static final Logger log = LoggerFactory.getLogger(WithLockInterceptor.class);

    private final WithLockClient client;
    private final LockedMethods methods;

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
        dev.dlock.DistributedLock lock = lockOf(client.forCall(LockedMethod.describe(locked.method())), locked.kind(), name);
        if (!acquire(lock, locked, name)) {
            return locked.skippedResult();
        }
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable failure) {
            release(lock, failure);
            throw failure;
        }
        release(lock, null);
        return result;
    }

    private static dev.dlock.DistributedLock lockOf(LockClient locks, WithLock.Kind kind, String name) {
        return switch (kind) {
            case PLAIN -> locks.getLock(name);
            case FAIR -> locks.getFairLock(name);
            case READ -> locks.getReadWriteLock(name).readLock();
            case WRITE -> locks.getReadWriteLock(name).writeLock();
        };
    }

    /** True when held; false when busy and skipped; throws when busy and not skipped. */
    private static boolean acquire(dev.dlock.DistributedLock lock, LockedMethod locked, String name) {
        if (locked.waitTime() == null) {
            if (locked.leaseTime() == null) {
                lock.lock();
            } else {
                lock.lock(locked.leaseTime());
            }
            return true;
        }
        boolean acquired;
        try {
            acquired = locked.leaseTime() == null
                    ? lock.tryLock(locked.waitTime().toNanos(), TimeUnit.NANOSECONDS)
                    : lock.tryLock(locked.waitTime(), locked.leaseTime());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return busy(locked, name, "interrupted while waiting up to " + locked.waitTime() + " for lock '" + name + "'");
        }
        return acquired || busy(locked, name, "lock '" + name + "' stayed busy for " + waitText(locked.waitTime()));
    }

    private static boolean busy(LockedMethod locked, String name, String why) {
        String message = why + "; " + LockedMethod.describe(locked.method())
                + (locked.onBusy() == WithLock.OnBusy.SKIP ? " skipped" : " not called");
        if (locked.onBusy() == WithLock.OnBusy.SKIP) {
            log.debug(message);
            return false;
        }
        throw new LockBusyException(name, locked.waitTime(), message);
    }

    private static String waitText(Duration wait) {
        return wait.isZero() ? "one attempt (waitTime 0)" : "the whole waitTime of " + wait.toMillis() + " ms";
    }

    private static void release(dev.dlock.DistributedLock lock, Throwable methodFailure) {
        try {
            lock.unlock();
        } catch (LockLostException e) {
            if (methodFailure == null) {
                throw e;
            }
            methodFailure.addSuppressed(e);
        } catch (LockBackendException e) {
            log.warn("releasing lock '{}' failed, it expires with its lease: {}", lock.name(), e.getMessage());
            if (methodFailure != null) {
                methodFailure.addSuppressed(e);
            }
        }
    }
}
