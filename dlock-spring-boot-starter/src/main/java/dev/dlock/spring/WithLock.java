package dev.dlock.spring;

import dev.dlock.LockBusyException;
import dev.dlock.LockKind;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method while holding a dlock lock, named by a SpEL expression over its arguments:
 *
 * <pre>{@code
 * @WithLock(key = "'order:' + #order.id", waitTime = "5s")
 * @Transactional
 * public void ship(Order order) { ... }
 * }</pre>
 *
 * <h2>Order with other advice</h2>
 * The lock advice runs outside {@code @Transactional} (and any advice ordered after
 * {@link WithLockAdvisor#DEFAULT_ORDER}): the lock is taken before the transaction begins
 * and released after it committed or rolled back, so the next holder sees the committed data.
 * {@code dlock.advice-order} changes the order.
 *
 * <h2>When the lock is busy</h2>
 * The call waits up to {@link #waitTime()} (by default without bound, as {@code synchronized}
 * does, but not at all for {@code onBusy = SKIP}); if the lock is still held by someone else
 * then, {@link #onBusy()} decides:
 * {@link OnBusy#THROW} throws {@link LockBusyException}, {@link OnBusy#SKIP} returns without
 * calling the method. Redis failing is never "busy": {@link #onOutage()} decides, by default
 * {@link dev.dlock.LockBackendException} for request methods and a quiet skip (one WARN per
 * outage) for {@code onBusy = SKIP} jobs.
 *
 * <h2>After the method</h2>
 * The lock is released however the method ends. A release that finds the hold lost (its lease
 * ran out, or it was force-released) throws {@link dev.dlock.LockLostException} after the method
 * returned normally (attached as suppressed to the method's own exception otherwise): the
 * method's work was not exclusive. A release that Redis does not answer is logged; the lock then
 * expires with its lease.
 *
 * <h2>Where it applies</h2>
 * On public, protected and package-private methods of Spring beans called through the bean (a
 * proxy), not on calls from within the same object: the startup reads the bean's bytecode and logs
 * a WARN for each call on {@code this} to an annotated method ({@code dlock.self-invocation=fail}
 * refuses to start instead). A private, static or final annotated method, which the proxy would
 * never see, fails the startup. Without a {@code LockClient} bean to lock
 * with, an annotated method fails the startup (or, in a bean created later, every call): it never
 * runs unlocked.
 *
 * <p>A method returning a Reactor {@code Mono} or {@code Flux} is locked from subscription until
 * the publisher ends, without blocking. Methods returning {@code CompletionStage}, {@code Future}
 * or another {@code Publisher}, and Kotlin {@code suspend} functions, are refused at startup: the
 * lock would be released before their work finished.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface WithLock {

    /**
     * SpEL expression giving the lock's name, evaluated against the method's arguments:
     * {@code #name} (when compiled with {@code -parameters}, as Spring Boot's build plugins do),
     * {@code #p0} / {@code #a0} by position, {@code #root.method}, {@code #root.target}, and
     * {@code @bean} references. A fixed name is {@link #name()} (or the quoted literal
     * {@code "'nightly-report'"}). Empty, with no {@code name} either (the default): the declaring
     * class's full name, a dot and the method's name, e.g. {@code com.example.Reports.nightly}.
     * The expression is parsed when the bean is created, so a malformed one, one naming a
     * {@code #variable} that is no parameter, or one reading a word the call does not have (a name
     * left unquoted, {@code "nightly-report"}, which SpEL reads as two properties) fails the startup;
     * an expression that yields null, or a name built from a null value ({@code "acct:null"}), or
     * that fails when evaluated, throws {@link IllegalArgumentException} naming the method and
     * the expression.
     *
     * @return the key expression
     */
    String key() default "";

    /**
     * The lock's name as written, not an expression: {@code "nightly-report"}, or with
     * {@code ${property}} placeholders, {@code "${spring.application.name}:nightly-report"},
     * resolved when the bean is created (a placeholder no property resolves fails the startup).
     * Empty (the default): {@link #key()} decides. Setting both fails the startup.
     *
     * @return the fixed name
     */
    String name() default "";

    /**
     * How long to wait for the lock: a duration such as {@code "5s"}, {@code "500ms"},
     * {@code "PT1M"} or a {@code ${property}}; {@code "0"} for one attempt. Empty (the default):
     * with {@code onBusy = SKIP}, one attempt, as {@code "0"}: a job that another host is running
     * is skipped at once, not run after it; otherwise wait without bound, riding through Redis
     * outages up to the client's outage tolerance.
     *
     * @return the wait time
     */
    String waitTime() default "";

    /**
     * How long a hold lasts unless released before, never renewed: a duration like
     * {@link #waitTime()}. Empty (the default): the watchdog lease ({@code dlock.default-lease},
     * 30 s), renewed while the method runs.
     *
     * @return the lease time
     */
    String leaseTime() default "";

    /**
     * How long the lock stays held at least, counted from when it was taken, however soon the
     * method returns: a duration like {@link #waitTime()}. A method that ends earlier gives the
     * lock back holding it for what is left (its lease is set to that, and Redis frees it then),
     * so another host whose clock or schedule is a little behind does not run the same job again
     * right after ({@link dev.dlock.DistributedLock#unlockHoldingAtLeast(java.time.Duration)},
     * ShedLock's "lock at least for"). Empty (the default): released when the method returns.
     * At most the {@link #leaseTime()}, when one is set.
     *
     * @return the minimum hold
     */
    String holdAtLeast() default "";

    /**
     * Which lock of the name: {@link LockKind#REENTRANT} (the default), {@link LockKind#FAIR}, or either
     * side of the read-write lock ({@link LockKind#READ}, {@link LockKind#WRITE}). {@link LockKind#PERMIT}
     * is refused at startup: a semaphore needs a permit count.
     *
     * @return the lock kind
     */
    LockKind kind() default LockKind.REENTRANT;

    /**
     * What happens when the wait ends with the lock still held elsewhere.
     *
     * @return {@link OnBusy#THROW} (the default) or {@link OnBusy#SKIP}
     */
    OnBusy onBusy() default OnBusy.THROW;

    /**
     * What a call does when Redis fails while it takes the lock (unreachable, refusing, or not
     * answering within the command timeout, past the outage tolerance for waits without bound):
     * the lock's state is then unknown, which is never "busy".
     *
     * @return {@link OnOutage#DEFAULT} (the default), {@link OnOutage#THROW} or {@link OnOutage#SKIP}
     */
    OnOutage onOutage() default OnOutage.DEFAULT;

    /** What a call does when Redis fails while it takes the lock. Constants may be added in later versions. */
    enum OnOutage {
        /**
         * For {@code onBusy = SKIP} methods (scheduled jobs): the {@code dlock.skip-on-outage}
         * property, {@code true} by default, which means {@link #SKIP}; for every other method
         * {@link #THROW}.
         */
        DEFAULT,
        /**
         * Throw {@link dev.dlock.LockBackendException}: the caller sees that Redis failed (a web
         * request answers {@code 503}); the log gets one WARN per outage and a count when Redis
         * answers again, as for {@link #SKIP}.
         */
        THROW,
        /**
         * Return without calling the method, as {@link OnBusy#SKIP} does on a busy lock; the log
         * gets one WARN when the first call is skipped and one line, with the number of calls
         * skipped, when Redis answers again, instead of an error each call.
         */
        SKIP
    }

    /** What a call does when the lock stays busy for the whole wait. Constants may be added in later versions. */
    enum OnBusy {
        /** Throw {@link LockBusyException} naming the lock and the wait. */
        THROW,
        /**
         * Return without calling the method: {@code null}, or {@code Optional.empty()} for a
         * method returning {@code Optional}; a method returning a primitive is refused at
         * startup. For {@code @Scheduled} jobs that must run on one host at a time. Without a
         * {@link #waitTime()}, the call makes one attempt and does not wait.
         */
        SKIP
    }
}
