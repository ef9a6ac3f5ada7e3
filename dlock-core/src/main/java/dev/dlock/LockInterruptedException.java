package dev.dlock;

/**
 * The thread was interrupted while it waited for a lock, where an {@link InterruptedException} cannot
 * be thrown (a method that does not declare it, such as one the Spring starter's {@code @WithLock}
 * wraps): the caller's code did not run, and the thread's interrupt flag is set again, so that the
 * interrupt is not lost. Its cause is the {@link InterruptedException}. Where one can be thrown, it
 * is thrown itself (and the flag is cleared, as {@code java.util.concurrent} does).
 *
 * <p>It is not a "busy" answer ({@link LockBusyException}) nor an outage ({@link LockBackendException}):
 * nobody was refused, the caller stopped waiting.
 */
public class LockInterruptedException extends LockException {
    @java.io.Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message   what happened, for people
     * @param interrupt the interrupt that ended the wait
     */
    public LockInterruptedException(String message, InterruptedException interrupt) {
        super(message, interrupt);
    }
}
