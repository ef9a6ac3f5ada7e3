package dev.dlock.spring.web;

import dev.dlock.spring.LockBusyException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Answers a {@link LockBusyException} thrown by a Spring MVC or WebFlux handler with its
 * {@link LockBusyException#getStatusCode() status} ({@code 409 Conflict}) and its
 * {@link ProblemDetail} as {@code application/problem+json}, without logging it as an error: a
 * busy lock is an answer, not a failure of the server. Ordered last, so an
 * {@code @ExceptionHandler} of the application's for the same exception wins.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class LockBusyExceptionHandler {

    /**
     * The answer to a busy lock.
     *
     * @param busy the exception
     * @return its status, headers and problem body
     */
    @ExceptionHandler(LockBusyException.class)
    public ResponseEntity<ProblemDetail> busy(LockBusyException busy) {
        return ResponseEntity.status(busy.getStatusCode()).headers(busy.getHeaders()).body(busy.getBody());
    }
}
