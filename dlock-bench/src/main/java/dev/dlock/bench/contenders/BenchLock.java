package dev.dlock.bench.contenders;

/**
 * One named lock as a benchmark drives it: thread-bound, like {@link java.util.concurrent.locks.Lock}.
 * {@link #lock()} blocks until held; {@link #unlock()} blocks until Redis has answered.
 */
public interface BenchLock {

    void lock();

    void unlock();

    /** The benchmark's view of a library's own lock (dlock's and Redisson's both implement {@code Lock}). */
    static BenchLock of(java.util.concurrent.locks.Lock lock) {
        return new BenchLock() {
            @Override
            public void lock() {
                lock.lock();
            }

            @Override
            public void unlock() {
                lock.unlock();
            }
        };
    }
}
