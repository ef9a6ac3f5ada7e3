package dev.dlock.spring.web;

import dev.dlock.LockBackendException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Answers a {@link LockBackendException} thrown by a Spring MVC or WebFlux handler (the lock's
 * store failed while a call took or released a lock, so its state is unknown) with
 * {@code 503 Service Unavailable}, a {@code Retry-After} header and a {@link ProblemDetail} as
 * {@code application/problem+json} naming the lock, instead of a {@code 500} and a stack trace per
 * request: the outage is the store's, and the request may be sent again once it ends. The body
 * tells the caller no more than the lock's name (not the store's address). It logs at DEBUG only:
 * {@code @WithLock} logs an outage once, a WARN at its first failed call and the count when the
 * store answers again. Ordered last, so an {@code @ExceptionHandler} of the application's for the
 * same exception wins.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class LockOutageExceptionHandler {
    /** The {@code Retry-After} of the default handler: 5 seconds. */
    public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(LockOutageExceptionHandler.class);

    private final Duration retryAfter;

    /** A handler whose answers say {@code Retry-After: 5}. */
    public LockOutageExceptionHandler() {
        this(DEFAULT_RETRY_AFTER);
    }

    /**
     * @param retryAfter what the {@code Retry-After} header says, in whole seconds (at least 1)
     * @throws IllegalArgumentException the duration is null or shorter than a second
     */
    public LockOutageExceptionHandler(Duration retryAfter) {
        if (retryAfter == null || retryAfter.getSeconds() < 1) {
            throw new IllegalArgumentException("retryAfter must be at least 1 second, got " + retryAfter);
        }
        this.retryAfter = retryAfter;
    }

    /**
     * The answer to a store outage: title "Lock store unavailable", a detail naming the lock, the
     * property {@code lockName} (absent when the operation was on no single lock).
     *
     * @param outage the exception
     * @return 503, {@code Retry-After} and the problem body
     */
    @ExceptionHandler(LockBackendException.class)
    public ResponseEntity<ProblemDetail> outage(LockBackendException outage) {
        log.debug("answering 503 to a lock store failure: {}", outage.getMessage());
        String lock = outage.lockName().map(name -> "The lock '" + name + "'").orElse("A lock");
        ProblemDetail body = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, lock
                + " could not be taken: the lock store did not answer; try again later.");
        body.setTitle("Lock store unavailable");
        outage.lockName().ifPresent(name -> body.setProperty("lockName", name));
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, String.valueOf(retryAfter.getSeconds())).body(body);
    }
}
