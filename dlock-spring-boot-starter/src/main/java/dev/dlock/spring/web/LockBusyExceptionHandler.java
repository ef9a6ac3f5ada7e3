package dev.dlock.spring.web;

import dev.dlock.LockBusyException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Answers a {@link LockBusyException} thrown by a Spring MVC or WebFlux handler with {@code 409
 * Conflict} (the request conflicts with the work that holds the lock now) and a {@link ProblemDetail}
 * as {@code application/problem+json}: title "Lock busy", a detail naming the lock and the wait, and
 * the properties {@code lockName} and {@code waitMillis}. It does not log it as an error: a busy lock
 * is an answer, not a failure of the server. Ordered last, so an {@code @ExceptionHandler} of the
 * application's for the same exception wins.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class LockBusyExceptionHandler {

    /**
     * The answer to a busy lock.
     *
     * @param busy the exception
     * @return 409 and the problem body
     */
    @ExceptionHandler(LockBusyException.class)
    public ResponseEntity<ProblemDetail> busy(LockBusyException busy) {
        ProblemDetail body = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, "The lock '" + busy.lockName() + "' "
                + (busy.waited().isZero() ? "was held by another caller (one attempt, no wait)"
                : "stayed busy for the whole wait of " + busy.waited().toMillis() + " ms") + "; try again later.");
        body.setTitle("Lock busy");
        body.setProperty("lockName", busy.lockName());
        body.setProperty("waitMillis", busy.waited().toMillis());
        return ResponseEntity.status(HttpStatus.CONFLICT).body(body);
    }
}
