package dev.dlock.cli.store;

import dev.dlock.Store;
import java.util.List;

/**
 * One store's global options and environment variables (a picocli mixin of {@link Stores}, its
 * options inherited by every subcommand): which of them are given, how they read as a checked
 * {@link ClientOptions}, and the library's {@link Store} they make. {@link Stores} picks the one
 * store the command line names; a new store is one more class like this and one entry there.
 */
public interface StoreOptions {

    /** What the locks live on, for messages: "Redis", "PostgreSQL", "ZooKeeper". */
    String storeName();

    /** The options that name this store, in the order the messages list them (e.g. --redis, --redlock, --cluster). */
    List<String> optionNames();

    /** Those of {@link #optionNames()} the command line gives, in the same order. */
    List<String> given();

    /**
     * How the message for options that exclude each other offers this store's options, e.g.
     * {@code --postgres URL}; empty when the store words its own ({@link #excludes(List)}).
     */
    List<String> forms();

    /**
     * This store's own message when one of its options is given with another store's; null for the
     * common one ("--redis and --postgres exclude each other: give one of ...").
     *
     * @param others the options of every other store, in the order of the list
     */
    default String excludes(List<String> others) {
        return null;
    }

    /** The environment variable that names this store when no option does. */
    String variable();

    /** The option the variable stands in for, with its value's name, for messages: {@code --redis URL}. */
    String variableOption();

    /**
     * True when the variable is read only if no other store's variable is set (it yields, silently);
     * false when two such variables set at once are an error that asks for an option.
     */
    default boolean variableYields() {
        return false;
    }

    /**
     * The store as its one given option names it ({@link #given()} has exactly one element), each URL checked.
     *
     * @throws dev.dlock.cli.common.UsageException a URL or the option's value is not acceptable
     */
    ClientOptions fromOptions();

    /**
     * The store as the variable names it.
     *
     * @param value the variable's value, not blank
     * @throws dev.dlock.cli.common.UsageException the value is not acceptable
     */
    ClientOptions fromVariable(String value);

    /** The store when nothing names one, or null: only the first store of {@link Stores} has one. */
    default ClientOptions byDefault() {
        return null;
    }

    /**
     * Called when another store is picked: this store's other options (its settings) given anyway are
     * a usage error.
     */
    default void checkNotPicked() {
    }

    /**
     * The library's store for {@code picked} (one this class made), with this store's settings.
     *
     * @param waitsOrWrites false for a command that never waits for a lock nor writes one (status,
     *                      list, top, release)
     * @throws dev.dlock.cli.common.UsageException the library refuses the URLs or settings
     */
    Store store(ClientOptions picked, boolean waitsOrWrites);
}
