package dev.dlock.bench;

/**
 * One named lock as a benchmark drives it: thread-bound, like {@link java.util.concurrent.locks.Lock}.
 * {@link #lock()} blocks until held; {@link #unlock()} blocks until Redis has answered.
 */
public interface BenchLock {

    void lock();

    void unlock();
}
