package dev.dlock.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a Redis that did not answer at startup into Spring Boot's "APPLICATION FAILED TO START" report. */
final class DlockFailureAnalyzer extends AbstractFailureAnalyzer<RedisUnreachableException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RedisUnreachableException cause) {
        return new FailureAnalysis("dlock could not connect to Redis at " + cause.address() + ": "
                + cause.getCause().getMessage(),
                "Start Redis there, or set dlock.redis-uri (or spring.data.redis.*) to a running one. To start without"
                        + " locks, set dlock.enabled=false.", cause);
    }
}
