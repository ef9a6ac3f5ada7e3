package dev.dlock.internal.store;

/**
 * What a store needs to know of a hold to renew it or put it back on a node: an immutable
 * snapshot of the engine's {@link dev.dlock.internal.hold.Hold}, taken when the call is made.
 *
 * @param count  the hold count at the snapshot (at least 1)
 * @param holder the holder description stored for inspection
 */
public record HeldLock(LockTarget target, LockKind kind, String owner, long token, int count, String holder) {
}
