package dev.dlock.cli.doctor;

import dev.dlock.cli.common.Durations;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The checks of {@code dlock doctor} on dlock's schema in PostgreSQL, from the catalogs alone: the
 * privileges dlock's role needs (to create the schema, or to use it), the schema against the SQL
 * files this dlock runs ({@value SchemaFile#RESOURCE}), and what autovacuum does with its tables.
 */
final class DoctorSchemaChecks {

    /** More dead rows than this in a table of dlock's: autovacuum does not keep up with the churn. */
    private static final long DEAD_ROWS_WARN = 10_000;
    private static final Pattern AUTOVACUUM_DISABLED = Pattern.compile("autovacuum_enabled=(false|off|no|0)\\b",
            Pattern.CASE_INSENSITIVE);
    private static final List<String> TABLE_PRIVILEGES = List.of("SELECT", "INSERT", "UPDATE", "DELETE");

    private final DoctorDatabase database;
    private final String schema;
    private final SchemaFile file = SchemaFile.read();

    DoctorSchemaChecks(DoctorDatabase database, String schema) {
        this.database = database;
        this.schema = schema;
    }

    /**
     * What dlock's SQL file creates, read from the file itself: its version, each table's columns,
     * its sequences and its functions.
     */
    record SchemaFile(int version, Map<String, List<String>> tables, List<String> sequences, Set<String> functions) {

        /** The files dlock runs, in order, to create its schema, in dlock-core's jar. */
        static final List<String> FILES = List.of("dev/dlock/postgres/V1__dlock.sql", "dev/dlock/postgres/V2__dlock.sql",
                "dev/dlock/postgres/V3__dlock.sql", "dev/dlock/postgres/V4__dlock.sql");
        /** The files as a sentence names them. */
        static final String RESOURCE = "dev/dlock/postgres/V1__dlock.sql then dev/dlock/postgres/V2__dlock.sql then "
                + "dev/dlock/postgres/V3__dlock.sql then dev/dlock/postgres/V4__dlock.sql";
        private static final Pattern TABLE = Pattern.compile("CREATE TABLE IF NOT EXISTS (\\w+) \\((.*?)\\n\\);",
                Pattern.DOTALL);
        private static final Pattern COLUMN = Pattern.compile("^\\s+(\\w+)\\s", Pattern.MULTILINE);
        private static final Pattern SEQUENCE = Pattern.compile("CREATE SEQUENCE IF NOT EXISTS (\\w+)");
        private static final Pattern FUNCTION = Pattern.compile("CREATE OR REPLACE FUNCTION (\\w+)\\(");
        private static final Pattern VERSION = Pattern.compile("FUNCTION dlock_schema_version\\(\\)[^$]*\\$\\$\\s*SELECT (\\d+)");

        static SchemaFile read() {
            StringBuilder all = new StringBuilder();
            for (String file : FILES) {
                try (InputStream in = SchemaFile.class.getClassLoader().getResourceAsStream(file)) {
                    if (in == null) {
                        throw new IllegalStateException(file + " is missing from the class path (dlock-core's jar)");
                    }
                    all.append(new String(in.readAllBytes(), StandardCharsets.UTF_8)).append('\n');
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            String sql = all.toString();
            Map<String, List<String>> tables = new LinkedHashMap<>();
            for (Matcher table = TABLE.matcher(sql); table.find(); ) {
                List<String> columns = new ArrayList<>();
                for (Matcher column = COLUMN.matcher(table.group(2)); column.find(); ) {
                    if (!List.of("PRIMARY", "UNIQUE", "CONSTRAINT", "CHECK", "FOREIGN").contains(column.group(1))) {
                        columns.add(column.group(1));
                    }
                }
                tables.put(table.group(1), columns);
            }
            List<String> sequences = SEQUENCE.matcher(sql).results().map(match -> match.group(1)).toList();
            Set<String> functions = new LinkedHashSet<>(FUNCTION.matcher(sql).results().map(match -> match.group(1)).toList());
            // the last file's version is the schema's
            List<Integer> versions = VERSION.matcher(sql).results().map(match -> Integer.valueOf(match.group(1))).toList();
            if (versions.isEmpty()) {
                throw new IllegalStateException(RESOURCE + " have no dlock_schema_version()");
            }
            return new SchemaFile(versions.get(versions.size() - 1), tables, sequences, functions);
        }
    }

    /** The schema as the catalogs show it: each of dlock's tables present with its columns, and dlock's functions. */
    private record Found(Map<String, List<String>> tables, Set<String> functions) {
        boolean nothing() {
            return tables.isEmpty() && functions.isEmpty();
        }
    }

    private Found found() throws SQLException {
        Map<String, List<String>> tables = new LinkedHashMap<>();
        for (List<String> row : database.rows("SELECT c.relname, a.attname FROM pg_class c "
                + "JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid "
                + "WHERE n.nspname = ? AND c.relname = ANY (?) AND a.attnum > 0 AND NOT a.attisdropped "
                + "ORDER BY c.relname, a.attnum", schema, file.tables().keySet().toArray(String[]::new))) {
            tables.computeIfAbsent(row.get(0), table -> new ArrayList<>()).add(row.get(1));
        }
        Set<String> functions = new LinkedHashSet<>();
        for (List<String> row : database.rows("SELECT DISTINCT p.proname FROM pg_proc p JOIN pg_namespace n "
                + "ON n.oid = p.pronamespace WHERE n.nspname = ? AND p.proname = ANY (?) ORDER BY 1",
                schema, file.functions().toArray(String[]::new))) {
            functions.add(row.get(0));
        }
        return new Found(tables, functions);
    }

    /** CREATE where the schema is to be created; else USAGE, EXECUTE on its functions, and its tables' and sequences' use. */
    DoctorCheck privileges() throws SQLException {
        String role = DoctorPostgresChecks.role(database);
        Found found = found();
        boolean schemaExists = database.text("SELECT 1 FROM pg_namespace WHERE nspname = ?", schema) != null;
        String where = "schema \"" + schema + "\"";
        if (found.nothing()) {
            boolean mayCreate = schemaExists
                    ? "true".equals(database.text("SELECT has_schema_privilege(?, 'CREATE')::text", schema))
                    : "true".equals(database.text("SELECT has_database_privilege(current_database(), 'CREATE')::text"));
            String createOn = schemaExists ? "CREATE on " + where : "CREATE on the database (" + where + " is not there)";
            if (!mayCreate) {
                String grant = schemaExists ? "GRANT CREATE ON SCHEMA " + quoted(schema)
                        : "GRANT CREATE ON DATABASE " + quoted(database.text("SELECT current_database()"));
                return DoctorCheck.fail("privileges", database.label(), "dlock's schema is not there, and role " + role
                        + " may not create it (no " + createOn + "): every client fails at start; run "
                        + SchemaFile.RESOURCE + " as a role that may (and grant " + role + " its use), or " + grant
                        + " TO " + role);
            }
            return DoctorCheck.ok("privileges", database.label(), "role " + role + " may create dlock's schema ("
                    + createOn + "): the first client creates it");
        }
        List<String> missing = new ArrayList<>();
        if (!"true".equals(database.text("SELECT has_schema_privilege(?, 'USAGE')::text", schema))) {
            missing.add("USAGE on " + where);
        }
        for (List<String> row : database.rows("SELECT p.proname FROM pg_proc p JOIN pg_namespace n "
                + "ON n.oid = p.pronamespace WHERE n.nspname = ? AND p.proname = ANY (?) "
                + "AND NOT has_function_privilege(p.oid, 'EXECUTE') ORDER BY 1",
                schema, file.functions().toArray(String[]::new))) {
            missing.add("EXECUTE on " + row.get(0));
        }
        // the functions run with their caller's rights: the role works on the tables and sequences itself
        // by oid: a name in a schema without USAGE would not even be looked up
        for (List<String> row : database.rows("SELECT p.privilege, c.relname FROM pg_class c "
                + "JOIN pg_namespace n ON n.oid = c.relnamespace CROSS JOIN unnest(?::text[]) WITH ORDINALITY "
                + "AS p(privilege, position) WHERE n.nspname = ? AND c.relname = ANY (?) "
                + "AND NOT has_table_privilege(c.oid, p.privilege) ORDER BY c.relname, p.position",
                TABLE_PRIVILEGES.toArray(String[]::new), schema, file.tables().keySet().toArray(String[]::new))) {
            missing.add(row.get(0) + " on " + row.get(1));
        }
        for (String sequence : file.sequences()) {
            String hasUsage = database.text("SELECT has_sequence_privilege(c.oid, 'USAGE')::text FROM pg_class c "
                    + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ?", schema, sequence);
            if ("false".equals(hasUsage)) {
                missing.add("USAGE on " + sequence);
            }
        }
        if (!missing.isEmpty()) {
            return DoctorCheck.fail("privileges", database.label(), "role " + role + " lacks " + String.join(", ", missing)
                    + ": the calls that need them fail (\"permission denied\"); grant them to " + role);
        }
        return DoctorCheck.ok("privileges", database.label(), "role " + role + " may use dlock's schema (USAGE on "
                + where + ", EXECUTE on its functions, " + String.join("/", TABLE_PRIVILEGES) + " on its tables, "
                + "USAGE on its sequences)");
    }

    /** The schema present, complete, of this dlock's version. */
    DoctorCheck schema() throws SQLException {
        Found found = found();
        String where = "schema \"" + schema + "\"";
        if (found.nothing()) {
            return DoctorCheck.ok("schema", database.label(), "dlock's schema is not in " + where + " yet: the first "
                    + "client creates it (see privileges), or run " + SchemaFile.RESOURCE);
        }
        List<String> problems = new ArrayList<>();
        file.tables().forEach((table, columns) -> {
            List<String> present = found.tables().get(table);
            if (present == null) {
                problems.add("no table " + table);
            } else if (!present.containsAll(columns)) {
                List<String> absent = new ArrayList<>(columns);
                absent.removeAll(present);
                problems.add("table " + table + " is not dlock's (no column " + String.join(", ", absent) + ")");
            }
        });
        List<String> absentFunctions = new ArrayList<>(file.functions());
        absentFunctions.removeAll(found.functions());
        if (!absentFunctions.isEmpty()) {
            problems.add("no function " + String.join(", ", absentFunctions));
        }
        String versionSource = database.text("SELECT p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                + "WHERE n.nspname = ? AND p.proname = 'dlock_schema_version'", schema);
        Integer version = versionSource == null ? null : Integer.valueOf(versionSource.replaceAll("\\D", ""));
        if (version != null && version != file.version()) {
            return DoctorCheck.fail("schema", database.label(), "dlock's schema in " + where + " is version " + version
                    + ", this dlock's is " + file.version() + ": its clients refuse it, or (creating the schema) put their "
                    + "own functions over it; use the dlock it belongs to");
        }
        if (!problems.isEmpty()) {
            return DoctorCheck.fail("schema", database.label(), "dlock's schema in " + where + " is incomplete: "
                    + String.join("; ", problems) + ": the calls that need them fail; a client allowed to create the "
                    + "schema completes it at start, or run " + SchemaFile.RESOURCE);
        }
        return DoctorCheck.ok("schema", database.label(), "dlock's schema version " + version + " in " + where + ": "
                + found.tables().size() + " tables, " + found.functions().size() + " functions" + rowCounts());
    }

    /** "; 3 holds, 1 waiter, ..." when the role may read the tables; else nothing. */
    private String rowCounts() {
        try {
            // a free lock keeps its row (schema version 3): only the live ones are holds
            List<String> counts = database.rows("SELECT (SELECT count(*) FROM " + qualified("dlock_hold")
                    + " WHERE lease_end > clock_timestamp()), "
                    + "(SELECT count(*) FROM " + qualified("dlock_waiter") + "), "
                    + "(SELECT count(*) FROM " + qualified("dlock_client") + ")").get(0);
            return "; " + counts.get(0) + " holds, " + counts.get(1) + " waiters, " + counts.get(2) + " client records";
        } catch (SQLException refused) {
            return "";
        }
    }

    /** Autovacuum on the server and on dlock's tables, and the dead rows that lock churn leaves in them. */
    DoctorCheck vacuum() throws SQLException {
        List<String> problems = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        if (!"on".equals(database.setting("autovacuum")) || !"on".equals(database.setting("track_counts"))) {
            problems.add("autovacuum is off on the server (autovacuum " + database.setting("autovacuum")
                    + ", track_counts " + database.setting("track_counts") + ")");
        }
        for (List<String> row : database.rows("SELECT c.relname, coalesce(s.n_dead_tup, 0), coalesce(s.n_live_tup, 0), "
                + "coalesce(array_to_string(c.reloptions, ', '), ''), "
                + "extract(epoch FROM now() - greatest(s.last_autovacuum, s.last_vacuum))::bigint "
                + "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                + "LEFT JOIN pg_stat_all_tables s ON s.relid = c.oid "
                + "WHERE n.nspname = ? AND c.relname = ANY (?) ORDER BY c.relname",
                schema, file.tables().keySet().toArray(String[]::new))) {
            String table = row.get(0);
            long dead = Long.parseLong(row.get(1));
            String options = row.get(3);
            String vacuumed = row.get(4) == null ? "never vacuumed"
                    : "vacuumed " + Durations.format(Duration.ofSeconds(Long.parseLong(row.get(4)))) + " ago";
            seen.add(table + " " + dead + " dead rows (" + vacuumed + (options.isEmpty() ? "" : "; " + options) + ")");
            if (AUTOVACUUM_DISABLED.matcher(options).find()) {
                problems.add("autovacuum is off for " + table + " (autovacuum_enabled=false)");
            }
            if (dead > DEAD_ROWS_WARN) {
                problems.add(table + " has " + dead + " dead rows (" + row.get(2) + " live, " + vacuumed + ")");
            }
        }
        if (!problems.isEmpty()) {
            return DoctorCheck.warn("vacuum", database.label(), String.join("; ", problems) + ": every release leaves a "
                    + "dead row, which the lookups of the names near it read past until vacuum removes it; "
                    + "deployments.md gives autovacuum settings for lock churn");
        }
        return DoctorCheck.ok("vacuum", database.label(), "autovacuum on" + (seen.isEmpty() ? "; no tables of dlock's yet"
                : ": " + String.join(", ", seen)));
    }

    private String qualified(String object) {
        return quoted(schema) + "." + object;
    }

    private static String quoted(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }
}
