package dev.dlock.internal.settings;

/**
 * Each store's client library is an optional dependency of dlock-core: a store value checks for its
 * library before any of its classes is touched, so that a missing jar is a message naming the Maven
 * coordinates to add, not a {@link NoClassDefFoundError} deep in a build. Refers to no library type itself.
 */
public final class ClientLibraries {

    private ClientLibraries() {
    }

    /**
     * @param store       the store's public name, as a message names it ({@code RedisStore})
     * @param className   a class of the library
     * @param coordinates the library's Maven coordinates, {@code group:artifact}
     * @throws IllegalStateException the class cannot be loaded
     */
    public static void require(String store, String className, String coordinates) {
        try {
            Class.forName(className, false, ClientLibraries.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException(store + " needs " + coordinates + " on the class path (its client library, an "
                    + "optional dependency of dlock-core): add the dependency " + coordinates, e);
        }
    }
}
