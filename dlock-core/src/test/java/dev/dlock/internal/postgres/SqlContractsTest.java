package dev.dlock.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every function of dlock's SQL files opens with its contract, as every Lua script does: a header
 * {@code -- <name>: what it does}, each argument, {@code Returns}, {@code Guarantees} and
 * {@code Called by}, naming the Java class that calls it when the Java side does. A later version's
 * file that replaces a function gives the new contract, or names the earlier file whose contract
 * it keeps ({@code -- <name>: V1__dlock.sql's contract, kept; ...}).
 */
class SqlContractsTest {

    private static final Pattern FUNCTION = Pattern.compile("^CREATE OR REPLACE FUNCTION (\\w+)\\(", Pattern.MULTILINE);

    private static final Pattern PARAMETER = Pattern.compile("\\bp_\\w+");

    /** A function's name as the Java side writes it in its SQL: {@code "dlock_acquire(?, ...)"}. */
    private static final Pattern CALL = Pattern.compile("\"(dlock_\\w+)\\(");

    private static final Path JAVA_SIDE = Path.of("src", "main", "java", "dev", "dlock", "internal", "postgres");

    /** One function of a file: its name, the comment right above it (DROPs between skipped), its signature. */
    record SqlFunction(String file, String name, String header, String signature) {
        boolean hasFullHeader() {
            return wanting().isEmpty();
        }

        List<String> wanting() {
            List<String> wanting = new ArrayList<>();
            if (!header.startsWith("-- " + name + ": ")) {
                wanting.add(name + " in " + file + ": no header line '-- " + name + ": ...'");
            }
            for (String section : List.of("Returns", "Guarantees", "Called by")) {
                if (!Pattern.compile("^-- " + section + "\\s", Pattern.MULTILINE).matcher(header).find()) {
                    wanting.add(name + " in " + file + ": no '" + section + "'");
                }
            }
            PARAMETER.matcher(signature).results().map(MatchResult::group)
                    .filter(parameter -> !Pattern.compile("^-- " + parameter + "\\s", Pattern.MULTILINE).matcher(header).find())
                    .forEach(parameter -> wanting.add(name + " in " + file + ": argument " + parameter + " not described"));
            return wanting;
        }

        String calledBy() {
            Matcher line = Pattern.compile("^-- Called by\\s+(.*(?:\\n--\\s{4,}.*)*)", Pattern.MULTILINE).matcher(header);
            return line.find() ? line.group(1) : "";
        }
    }

    @Test
    void everyFunctionOpensWithItsContract() {
        List<String> wanting = new ArrayList<>();
        Map<String, SqlFunction> contracts = new LinkedHashMap<>();
        for (SqlFunction function : allFunctions()) {
            SqlFunction earlier = contracts.get(function.name());
            boolean keepsEarlier = earlier != null && function.header().startsWith("-- " + function.name() + ": ")
                    && function.header().contains(fileName(earlier.file()));
            if (function.hasFullHeader()) {
                contracts.put(function.name(), function);
            } else if (!keepsEarlier) {
                wanting.addAll(function.wanting());
            }
        }
        assertThat(wanting).isEmpty();
    }

    @Test
    void everyFunctionTheJavaSideCallsNamesItsCaller() {
        Map<String, SqlFunction> byName = new LinkedHashMap<>();
        allFunctions().stream().filter(SqlFunction::hasFullHeader).forEach(function -> byName.put(function.name(), function));
        Map<String, TreeSet<String>> callers = javaCallers();
        assertThat(callers).as("the functions the Java side calls").isNotEmpty();

        List<String> wanting = new ArrayList<>();
        callers.forEach((name, classes) -> {
            SqlFunction function = byName.get(name);
            if (function == null) {
                wanting.add(name + " is called by " + classes + " but has no contract in " + PgSchema.FILES);
                return;
            }
            classes.stream().filter(javaClass -> !function.calledBy().matches("(?s).*\\b" + javaClass + "\\b.*"))
                    .forEach(javaClass -> wanting.add(name + ": its 'Called by' does not name " + javaClass));
        });
        assertThat(wanting).isEmpty();
    }

    /** The functions of every version's file, in the order dlock runs them. */
    static List<SqlFunction> allFunctions() {
        List<SqlFunction> functions = new ArrayList<>();
        for (String file : PgSchema.RESOURCES) {
            String sql = sqlFile(file);
            Matcher create = FUNCTION.matcher(sql);
            while (create.find()) {
                functions.add(new SqlFunction(file, create.group(1), headerAbove(sql, create.start()),
                        signature(sql, create.end() - 1)));
            }
        }
        return functions;
    }

    private static String fileName(String resource) {
        return resource.substring(resource.lastIndexOf('/') + 1);
    }

    /** The comment lines right above {@code offset}, DROP FUNCTION lines between them and it left out. */
    private static String headerAbove(String sql, int offset) {
        List<String> lines = new ArrayList<>(List.of(sql.substring(0, offset).split("\n", -1)));
        lines.remove(lines.size() - 1);
        while (!lines.isEmpty() && lines.get(lines.size() - 1).startsWith("DROP FUNCTION ")) {
            lines.remove(lines.size() - 1);
        }
        int first = lines.size();
        while (first > 0 && lines.get(first - 1).startsWith("--")) {
            first--;
        }
        return String.join("\n", lines.subList(first, lines.size()));
    }

    /** The argument list from its opening parenthesis to the one that closes it. */
    private static String signature(String sql, int open) {
        int depth = 0;
        for (int i = open; i < sql.length(); i++) {
            char c = sql.charAt(i);
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            if (depth == 0) {
                return sql.substring(open + 1, i);
            }
        }
        throw new IllegalStateException("unclosed argument list at " + open);
    }

    /** Each SQL function the Java side of the PostgreSQL store calls, and the classes calling it. */
    private static Map<String, TreeSet<String>> javaCallers() {
        Map<String, TreeSet<String>> callers = new TreeMap<>();
        try (Stream<Path> files = Files.list(JAVA_SIDE)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String javaClass = file.getFileName().toString().replace(".java", "");
                CALL.matcher(Files.readString(file)).results()
                        .forEach(call -> callers.computeIfAbsent(call.group(1), name -> new TreeSet<>()).add(javaClass));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return callers;
    }

    private static String sqlFile(String resource) {
        try (InputStream in = SqlContractsTest.class.getClassLoader().getResourceAsStream(resource)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
