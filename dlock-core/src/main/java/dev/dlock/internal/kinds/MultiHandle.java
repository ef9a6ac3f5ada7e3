package dev.dlock.internal.kinds;

import dev.dlock.LockHandle;
import dev.dlock.LockLostException;
import dev.dlock.internal.Callbacks;
import dev.dlock.internal.store.Failures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/** The handle of a multi-lock: one handle per name, released together. */
public final class MultiHandle extends ReleaseOnceHandle {

    private final String name;
    private final List<Handle> handles;
    private final CompletableFuture<LockLostException> lost;

    /** @param handles one per name, in the order they were acquired */
    public MultiHandle(Callbacks callbacks, String name, List<Handle> handles) {
        super(callbacks);
        this.name = name;
        this.handles = List.copyOf(handles);
        CompletableFuture<?>[] losses = this.handles.stream().map(Handle::lost).toArray(CompletableFuture[]::new);
        this.lost = CompletableFuture.anyOf(losses).thenApply(LockLostException.class::cast);
    }

    @Override
    public String lockName() {
        return name;
    }

    /** The highest of the names' tokens: every name's token is at most this one. */
    @Override
    public long fencingToken() {
        return handles.stream().mapToLong(LockHandle::fencingToken).max().orElse(0);
    }

    @Override
    public boolean isValid() {
        return !isReleased() && handles.stream().allMatch(LockHandle::isValid);
    }

    @Override
    public Duration leaseEstimate() {
        return isValid() ? handles.stream().map(LockHandle::leaseEstimate).min(Duration::compareTo).orElse(Duration.ZERO)
                : Duration.ZERO;
    }

    /** Completes with the first loss of any name's hold; a copy, as {@link Handle#whenLost()}. */
    @Override
    public CompletableFuture<LockLostException> whenLost() {
        return callbacks().copy(lost);
    }

    /** Releases every name, also when some fail; fails with the first failure, the others suppressed. */
    @Override
    protected CompletableFuture<Void> releaseOnce(long minimumHoldNanos) {
        return releaseAll(handles, handle -> handle.giveBack(minimumHoldNanos));
    }

    @Override
    public String heldThing() {
        return "multi-lock " + name;
    }

    /** Releases the handles (last acquired first), each whatever became of the others. */
    public static CompletableFuture<Void> releaseAll(List<Handle> handles) {
        return releaseAll(handles, handle -> handle.giveBack(0));
    }

    /** Releases the handles (last acquired first) each with {@code release}, whatever became of the others. */
    private static CompletableFuture<Void> releaseAll(List<Handle> handles,
                                                      Function<Handle, CompletableFuture<Void>> releaseOne) {
        List<CompletableFuture<Throwable>> outcomes = new ArrayList<>();
        for (int i = handles.size() - 1; i >= 0; i--) {
            CompletableFuture<Void> release;
            try {
                release = releaseOne.apply(handles.get(i));
            } catch (RuntimeException e) {
                release = CompletableFuture.failedFuture(e);
            }
            outcomes.add(release.handle((ok, error) -> error == null ? null : Failures.unwrap(error)));
        }
        return CompletableFuture.allOf(outcomes.toArray(CompletableFuture[]::new)).thenApply(done -> {
            RuntimeException first = null;
            for (CompletableFuture<Throwable> outcome : outcomes) {
                Throwable failure = outcome.join();
                if (failure == null) {
                    continue;
                }
                if (first == null) {
                    first = Failures.forCaller(failure);
                } else {
                    first.addSuppressed(failure);
                }
            }
            if (first != null) {
                throw first;
            }
            return null;
        });
    }

    @Override
    public String toString() {
        return "LockHandle[" + name + ", token " + fencingToken() + (isValid() ? "" : ", no longer held") + "]";
    }
}
