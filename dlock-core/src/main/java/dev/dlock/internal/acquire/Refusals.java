package dev.dlock.internal.acquire;

import dev.dlock.LockLostException;
import dev.dlock.LockObserver.LossCause;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;

/** The replies that end an acquisition with an exception rather than a wait, as the caller reads them. */
final class Refusals {

    private Refusals() {
    }

    /**
     * @param permits the permit count the caller asked a semaphore with
     * @return the exception for a re-entry of a lost hold or a semaphore's other permit count
     */
    static RuntimeException of(AcquireReply reply, LockTarget target, LockKind kind, int permits) {
        String lock = kind.label() + " '" + target.name() + "'";
        if (reply instanceof AcquireReply.PermitsDiffer differ) {
            return new IllegalStateException(lock + " is held with " + differ.stored() + " permits, and this client "
                    + "asked for it with " + permits + ": every client of a semaphore must give the same count (a new "
                    + "count applies once every permit is released)");
        }
        return new LockLostException(target.name(), 0, LossCause.GONE, lock
                + " was lost before this re-entry: its lease expired or it was force-released");
    }
}
