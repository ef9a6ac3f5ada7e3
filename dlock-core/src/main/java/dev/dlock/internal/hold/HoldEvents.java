package dev.dlock.internal.hold;

import dev.dlock.LockObserver.LossCause;

/**
 * What the holds tell the client's observers (the observe package implements it): a hold lost,
 * and the watchdog's rounds. The holds know nothing more of who listens.
 */
public interface HoldEvents {

    /** The hold is lost, for the given cause; told once. */
    void lost(Hold hold, LossCause cause);

    /** The watchdog starts a round over {@code holds} holds, {@code lagNanos} later than due. */
    void renewalRound(int holds, long lagNanos);

    /** A batch of renewals came back: so many renewed, so many not. */
    void renewalBatch(int renewed, int failed);
}
