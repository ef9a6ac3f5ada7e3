package dev.dlock.spring;

import dev.dlock.LockException;
import java.time.Duration;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponse;

/**
 * A method annotated with {@link WithLock @WithLock} (with {@code onBusy = THROW}, the default)
 * was not called because its lock stayed held by someone else for the whole
 * {@link WithLock#waitTime() wait}, or the waiting thread was interrupted. The method did not run.
 *
 * <p>It is Spring's {@link ErrorResponse}: thrown from a web request, Spring MVC and WebFlux answer
 * {@code 409 Conflict} with a {@link ProblemDetail} body ({@code application/problem+json}) whose
 * {@code lockName} and {@code waitMillis} properties name the lock and the wait, with no advice of
 * the application's (an {@code @ExceptionHandler} of its own still wins).
 *
 * <p>It is a {@link LockException}, as {@link dev.dlock.LockBackendException} (Redis failing) is:
 * {@code catch (LockException e)} handles both.
 */
public class LockBusyException extends LockException implements ErrorResponse {
    private static final long serialVersionUID = 1L;

    /** The busy lock's name. */
    private final String lockName;
    /** How long the caller waited. */
    private final Duration waited;
    /** The HTTP answer's body. */
    private final ProblemDetail body;

    /**
     * @param lockName the lock's name, as the key expression gave it
     * @param waited   how long the caller waited for it
     * @param message  the full message
     */
    public LockBusyException(String lockName, Duration waited, String message) {
        super(message, null);
        this.lockName = lockName;
        this.waited = waited;
        this.body = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, "The lock '" + lockName + "' "
                + (waited.isZero() ? "was held by another caller (one attempt, no wait)"
                : "stayed busy for the whole wait of " + waited.toMillis() + " ms") + "; try again later.");
        body.setTitle("Lock busy");
        body.setProperty("lockName", lockName);
        body.setProperty("waitMillis", waited.toMillis());
    }

    /**
     * The lock that was busy.
     *
     * @return its name, as the key expression gave it
     */
    public String lockName() {
        return lockName;
    }

    /**
     * How long the caller waited before giving up.
     *
     * @return the annotation's wait time ({@link Duration#ZERO} for one attempt)
     */
    public Duration waited() {
        return waited;
    }

    /**
     * {@code 409 Conflict}: the request conflicts with the work that holds the lock now.
     *
     * @return {@link HttpStatus#CONFLICT}
     */
    @Override
    public HttpStatusCode getStatusCode() {
        return HttpStatus.CONFLICT;
    }

    /**
     * The problem: title "Lock busy", a detail naming the lock and the wait, and the properties
     * {@code lockName} and {@code waitMillis}.
     *
     * @return the body of the HTTP answer
     */
    @Override
    public ProblemDetail getBody() {
        return body;
    }
}
