package dev.dlock.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a Redis that did not answer at startup into Spring Boot's "APPLICATION FAILED TO START" report. */
final class DlockFailureAnalyzer extends AbstractFailureAnalyzer<RedisUnreachableException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RedisUnreachableException cause) {
        // no "set dlock.enabled=false" here: it is no way to start without Redis, @WithLock
        // methods then fail the startup for want of a client
        return new FailureAnalysis("dlock could not connect to Redis at " + cause.address() + ": "
                + cause.getCause().getMessage(), cause.action(), cause);
    }

    /** The report of every other refusal of the starter: a bad annotation, property or store. */
    static final class Refusal extends AbstractFailureAnalyzer<StartupRefusal> {
        @Override
        protected FailureAnalysis analyze(Throwable rootFailure, StartupRefusal cause) {
            String action = cause.action();
            return new FailureAnalysis(cause.description(),
                    Character.toUpperCase(action.charAt(0)) + action.substring(1) + ".", cause);
        }
    }

    /** The report of {@code @WithLock} methods without a {@code LockClient} to lock with. */
    static final class NoLockClient extends AbstractFailureAnalyzer<WithLockClient.NoLockClientException> {
        @Override
        protected FailureAnalysis analyze(Throwable rootFailure, WithLockClient.NoLockClientException cause) {
            return new FailureAnalysis(cause.getMessage().substring(0, cause.getMessage().length() - cause.action().length()).trim(),
                    cause.action(), cause);
        }
    }
}
