package dev.dlock.internal.acquire;

import dev.dlock.internal.hold.ClientIdentity;
import dev.dlock.internal.observe.LockEvents;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.LockStore;

/** What the acquire loop works with; nothing else of the client is reachable from it. */
public record AcquireContext(LockStore store, WakeUps wakeUps, LocalHandoff handoff, ClientIdentity identity,
                             Ticker ticker, Settings settings, LockEvents events) {
}
