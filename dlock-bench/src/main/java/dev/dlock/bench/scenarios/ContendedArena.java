package dev.dlock.bench.scenarios;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the threads of one contended run share: the phase of the run, how many threads are inside
 * the critical section (more than one is an exclusion violation), and the last release (who, and
 * when it called unlock). In one process it is plain atomics; across processes it is a small file
 * that every process maps, with atomic access through a {@link VarHandle}: {@link System#nanoTime()}
 * reads the same clock in every process of a Linux machine, so release and acquire times compare.
 */
public abstract class ContendedArena {

    /** Threads wait for the run to start (processes still connecting). */
    public static final int STARTING = 0;
    static final int WARMUP = 1;
    public static final int MEASURE = 2;
    static final int STOP = 3;

    public abstract int phase();

    public abstract void setPhase(int phase);

    /** One more thread inside the critical section; returns how many are inside now. */
    public abstract long enter();

    public abstract void leave();

    public abstract void violation();

    public abstract long violations();

    /** Called inside the critical section, just before unlock. */
    public abstract void released(int thread, long nanos);

    /** The thread of the last release, or -1 before the first. */
    public abstract int lastReleaseThread();

    public abstract long lastReleaseNanos();

    /** Plain atomics, for threads of one process. */
    static ContendedArena inProcess() {
        return new ContendedArena() {
            private final AtomicInteger phase = new AtomicInteger(WARMUP);
            private final AtomicLong inside = new AtomicLong();
            private final AtomicLong violations = new AtomicLong();
            private volatile int lastThread = -1;
            private volatile long lastNanos;

            @Override
            public int phase() {
                return phase.get();
            }

            @Override
            public void setPhase(int next) {
                phase.set(next);
            }

            @Override
            public long enter() {
                return inside.incrementAndGet();
            }

            @Override
            public void leave() {
                inside.decrementAndGet();
            }

            @Override
            public void violation() {
                violations.incrementAndGet();
            }

            @Override
            public long violations() {
                return violations.get();
            }

            @Override
            public void released(int thread, long nanos) {
                lastNanos = nanos;
                lastThread = thread;
            }

            @Override
            public int lastReleaseThread() {
                return lastThread;
            }

            @Override
            public long lastReleaseNanos() {
                return lastNanos;
            }
        };
    }

    /**
     * The arena in {@code file}, mapped; the process that creates the file (the parent) passes
     * {@code create} and the run starts in {@link #STARTING}. Slots: phase, inside, violations,
     * last release thread, last release nanos, processes ready.
     */
    public static Mapped mapped(Path file, boolean create) {
        return new Mapped(file, create);
    }

    public static final class Mapped extends ContendedArena {
        private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
        private static final int PHASE = 0;
        private static final int INSIDE = 8;
        private static final int VIOLATIONS = 16;
        private static final int LAST_THREAD = 24;
        private static final int LAST_NANOS = 32;
        private static final int READY = 40;
        private static final int SIZE = 64;

        private final MappedByteBuffer buffer;

        private Mapped(Path file, boolean create) {
            try (FileChannel channel = create
                    ? FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)
                    : FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                buffer = channel.map(FileChannel.MapMode.READ_WRITE, 0, SIZE);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot map " + file, e);
            }
            if (create) {
                for (int offset = 0; offset < SIZE; offset += 8) {
                    LONGS.setVolatile(buffer, offset, 0L);
                }
                LONGS.setVolatile(buffer, LAST_THREAD, -1L);
            }
        }

        @Override
        public int phase() {
            return (int) (long) LONGS.getVolatile(buffer, PHASE);
        }

        @Override
        public void setPhase(int phase) {
            LONGS.setVolatile(buffer, PHASE, (long) phase);
        }

        @Override
        public long enter() {
            return (long) LONGS.getAndAdd(buffer, INSIDE, 1L) + 1;
        }

        @Override
        public void leave() {
            LONGS.getAndAdd(buffer, INSIDE, -1L);
        }

        @Override
        public void violation() {
            LONGS.getAndAdd(buffer, VIOLATIONS, 1L);
        }

        @Override
        public long violations() {
            return (long) LONGS.getVolatile(buffer, VIOLATIONS);
        }

        @Override
        public void released(int thread, long nanos) {
            LONGS.setVolatile(buffer, LAST_NANOS, nanos);
            LONGS.setVolatile(buffer, LAST_THREAD, (long) thread);
        }

        @Override
        public int lastReleaseThread() {
            return (int) (long) LONGS.getVolatile(buffer, LAST_THREAD);
        }

        @Override
        public long lastReleaseNanos() {
            return (long) LONGS.getVolatile(buffer, LAST_NANOS);
        }

        /** A child process has connected and is ready to start. */
        public void ready() {
            LONGS.getAndAdd(buffer, READY, 1L);
        }

        public long readyCount() {
            return (long) LONGS.getVolatile(buffer, READY);
        }
    }
}
