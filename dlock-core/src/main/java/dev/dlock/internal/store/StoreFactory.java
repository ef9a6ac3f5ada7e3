package dev.dlock.internal.store;

/**
 * How a backend plugs in: the client's builder holds one factory (Redis unless told otherwise) and
 * the engine opens the store through it once, at {@code build()}. Opening connects (and fails
 * loudly when the store cannot be reached); {@link LockStore#close()} disconnects.
 */
@FunctionalInterface
public interface StoreFactory {

    LockStore open(StoreContext context);
}
