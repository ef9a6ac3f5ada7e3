package dev.dlock.cli.store;

import dev.dlock.PostgresStore;
import dev.dlock.Store;
import dev.dlock.cli.common.Durations;
import dev.dlock.cli.common.UsageException;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * PostgreSQL: {@code --postgres}, else {@code $DLOCK_POSTGRES_URL}; with its settings, the schema
 * ({@code --postgres-schema}, else {@code $DLOCK_POSTGRES_SCHEMA}), whether to create it and polling
 * instead of LISTEN/NOTIFY.
 */
public final class PostgresOptions implements StoreOptions {

    public static final String URL_ENV = "DLOCK_POSTGRES_URL";
    public static final String SCHEMA_ENV = "DLOCK_POSTGRES_SCHEMA";
    public static final String NO_CREATE_ENV = "DLOCK_POSTGRES_NO_CREATE_SCHEMA";

    /** How often a command that never waits nor writes asks again, instead of LISTEN/NOTIFY and its test. */
    private static final Duration INSPECTION_POLLING = Duration.ofMillis(100);

    @Option(names = "--postgres", paramLabel = "URL", scope = ScopeType.INHERIT,
            description = {"PostgreSQL instead of Redis:",
                    "jdbc:postgresql://host:port/db?user=...&password=...",
                    "(or postgresql://...). Default: $DLOCK_POSTGRES_URL.",
                    "Excludes --redis, --redlock and --cluster."})
    private String postgres;

    @Option(names = "--postgres-schema", paramLabel = "NAME", scope = ScopeType.INHERIT,
            description = {"PostgreSQL: the schema of dlock's tables and functions.",
                    "Default: $" + SCHEMA_ENV + ", else public."})
    private String schema;

    @Option(names = "--postgres-no-create-schema", scope = ScopeType.INHERIT,
            description = {"PostgreSQL: never create dlock's schema; fail",
                    "naming the SQL file to run when it is missing.",
                    "Also when $" + NO_CREATE_ENV + " is",
                    "true. status, list, top and release never",
                    "create it."})
    private boolean noCreateSchema;

    @Option(names = "--postgres-polling", paramLabel = "DURATION", scope = ScopeType.INHERIT,
            converter = Durations.class,
            description = {"PostgreSQL: waiters ask again at this interval",
                    "instead of LISTEN/NOTIFY (for PgBouncer in",
                    "transaction pooling), and the 2 s NOTIFY test",
                    "at start is skipped."})
    private Duration polling;

    @Override
    public String storeName() {
        return "PostgreSQL";
    }

    @Override
    public List<String> optionNames() {
        return List.of("--postgres");
    }

    @Override
    public List<String> given() {
        return postgres != null ? List.of("--postgres") : List.of();
    }

    @Override
    public List<String> forms() {
        return List.of("--postgres URL");
    }

    @Override
    public String variable() {
        return URL_ENV;
    }

    @Override
    public String variableOption() {
        return "--postgres URL";
    }

    @Override
    public ClientOptions fromOptions() {
        return new ClientOptions(this, "--postgres", List.of(checkedUrl(postgres, "--postgres")), "--postgres");
    }

    @Override
    public ClientOptions fromVariable(String value) {
        return new ClientOptions(this, "--postgres", List.of(checkedUrl(value.strip(), URL_ENV)), URL_ENV);
    }

    @Override
    public void checkNotPicked() {
        if (schema != null || noCreateSchema || polling != null) {
            throw new UsageException("--postgres-schema, --postgres-no-create-schema and --postgres-polling are for "
                    + "--postgres URL (or $" + URL_ENV + ")");
        }
    }

    /**
     * The store with the {@code --postgres-...} settings; for a command that never waits for a lock nor
     * writes one polling without the NOTIFY test and never creating the schema.
     */
    @Override
    public Store store(ClientOptions picked, boolean waitsOrWrites) {
        PostgresStore store;
        try {
            store = PostgresStore.url(picked.urls().get(0));
        } catch (IllegalArgumentException e) {
            throw new UsageException("--postgres: " + e.getMessage(), e);
        }
        String schema = schema();
        String noCreate = System.getenv(NO_CREATE_ENV);
        boolean create = waitsOrWrites && !noCreateSchema
                && (noCreate == null || noCreate.isBlank() || noCreate.strip().equalsIgnoreCase("false")
                        || noCreate.strip().equals("0"));
        Duration polling = this.polling != null ? this.polling : waitsOrWrites ? null : INSPECTION_POLLING;
        try {
            PostgresStore withOptions = (schema != null ? store.schema(schema) : store).createSchema(create);
            return polling != null ? withOptions.polling(polling) : withOptions;
        } catch (IllegalArgumentException e) {
            throw new UsageException((this.polling != null ? "--postgres-polling: " : "--postgres-schema: ")
                    + e.getMessage(), e);
        }
    }

    /**
     * The schema of dlock's tables as the options name it: {@code --postgres-schema}, else
     * {@code $DLOCK_POSTGRES_SCHEMA}; null when neither does (the library's default, public).
     */
    public String schema() {
        String schema = this.schema != null ? this.schema : System.getenv(SCHEMA_ENV);
        return schema == null || schema.isBlank() ? null : schema.strip();
    }

    /** The URL if the library takes it as a PostgreSQL URL; else a usage error naming where it came from. */
    private static String checkedUrl(String url, String from) {
        try {
            PostgresStore.url(url);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new UsageException(from + ": " + e.getMessage(), e);
        }
        return url;
    }
}
