package dev.dlock.cli.store;

import dev.dlock.LockClientBuilder;
import dev.dlock.cli.common.UsageException;
import java.lang.reflect.Field;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Every store's options, as one picocli mixin of the root command, and the rules that pick the one
 * store a command line names: at most one store option (a store may word its own message for
 * that), else the environment variables (two set at once are an error, except one that yields),
 * else the first store's default. A new store is a {@link StoreOptions} class and one entry here.
 */
public final class Stores {

    // The stores, in the order the messages name them; the first is the default.
    @Mixin
    private RedisOptions redis = new RedisOptions();
    @Mixin
    private PostgresOptions postgres = new PostgresOptions();
    @Mixin
    private ZooKeeperOptions zookeeper = new ZooKeeperOptions();

    private List<StoreOptions> all() {
        return List.of(redis, postgres, zookeeper);
    }

    /** The store options given on the command line, in the order of the stores. */
    public List<String> given() {
        return all().stream().flatMap(store -> store.given().stream()).toList();
    }

    /**
     * The store the options name, else the environment, else the default; each URL checked as the library checks it.
     *
     * @throws UsageException the options or variables exclude each other, or a URL is not acceptable
     */
    public ClientOptions pick() {
        return pick(System::getenv);
    }

    /** As {@link #pick()}, with the variables from {@code environment}. */
    ClientOptions pick(UnaryOperator<String> environment) {
        List<String> given = given();
        if (given.size() > 1) {
            throw new UsageException(excludeEachOther(given));
        }
        for (StoreOptions store : all()) {
            if (!store.given().isEmpty()) {
                return store.fromOptions();
            }
        }
        // no option: the variables that do not yield first, then those that do
        for (boolean yielding : new boolean[] {false, true}) {
            List<StoreOptions> set = all().stream().filter(store -> store.variableYields() == yielding
                    && isSet(environment.apply(store.variable()))).toList();
            if (set.size() > 1) {
                throw new UsageException(and(set.stream().map(StoreOptions::variable).toList())
                        + (set.size() == 2 ? " are both set" : " are all set") + ": say which with "
                        + or(set.stream().map(StoreOptions::variableOption).toList()));
            }
            if (set.size() == 1) {
                return set.get(0).fromVariable(environment.apply(set.get(0).variable()));
            }
        }
        return all().stream().map(StoreOptions::byDefault).filter(Objects::nonNull).findFirst()
                .orElseThrow(() -> new IllegalStateException("no store has a default"));
    }

    /**
     * A builder for the picked store with its settings, nothing else set.
     *
     * @param waitsOrWrites false for a command that never waits for a lock nor writes one (status, list, top, release)
     * @throws UsageException the options exclude each other, a URL or setting is not acceptable, or a store's
     *                        settings are given for another store
     */
    public LockClientBuilder builder(boolean waitsOrWrites) {
        ClientOptions picked = pick();
        for (StoreOptions store : all()) {
            if (store != picked.store()) {
                store.checkNotPicked();
            }
        }
        return picked.builder(waitsOrWrites);
    }

    /**
     * The store options that take a value, from their {@link Option} fields: for a scan of the
     * arguments before picocli builds its model ({@code DlockCommand.subcommandsFor}).
     */
    public static Set<String> optionsWithValue() {
        Set<String> names = new HashSet<>();
        for (StoreOptions store : new Stores().all()) {
            for (Field field : store.getClass().getDeclaredFields()) {
                Option option = field.getAnnotation(Option.class);
                if (option != null && field.getType() != boolean.class) {
                    names.addAll(List.of(option.names()));
                }
            }
        }
        return names;
    }

    private String excludeEachOther(List<String> given) {
        for (StoreOptions store : all()) {
            if (!store.given().isEmpty()) {
                List<String> others = all().stream().filter(other -> other != store)
                        .flatMap(other -> other.optionNames().stream()).toList();
                String own = store.excludes(others);
                if (own != null && given.size() > store.given().size()) {
                    return own;
                }
            }
        }
        List<String> forms = all().stream().flatMap(store -> store.forms().stream()).toList();
        return String.join(" and ", given) + " exclude each other: give one of " + or(forms);
    }

    private static boolean isSet(String value) {
        return value != null && !value.isBlank();
    }

    /** "a", "a and b", "a, b and c". */
    static String and(List<String> items) {
        return joined(items, " and ");
    }

    private static String or(List<String> items) {
        return joined(items, " or ");
    }

    private static String joined(List<String> items, String last) {
        if (items.size() < 2) {
            return String.join("", items);
        }
        return String.join(", ", items.subList(0, items.size() - 1)) + last + items.get(items.size() - 1);
    }
}
