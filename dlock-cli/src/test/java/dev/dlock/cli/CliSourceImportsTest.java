package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.testing.SourceImports.Import;
import dev.dlock.testing.SourceImports;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The layering {@link CliArchitectureTest} checks on the compiled classes, checked on the sources'
 * imports: an import made only for a Javadoc link, or for a constant the compiler inlines, leaves
 * no trace in a class file, yet a reader sees a dependency. So no command package imports
 * another's, {@code store} and {@code terminal} import no command, and {@code common} imports
 * nothing of the CLI. A name a comment must give across the layers is written fully qualified.
 */
class CliSourceImportsTest {

    private static final Path SOURCES = Path.of("src", "main", "java");

    private static final List<String> COMMANDS = List.of("exec", "inspect", "release", "doctor", "demo");

    @Test
    void noImportCrossesTheLayering() {
        assertThat(crossings(SourceImports.of(SOURCES))).isEmpty();
    }

    /** The check itself: a Javadoc-only import of a command in the store options is a crossing. */
    @Test
    void aJavadocOnlyImportAcrossTheLayersIsFound() {
        List<Import> planted = SourceImports.of("dev/dlock/cli/store/Planted.java", """
                package dev.dlock.cli.store;

                import dev.dlock.cli.exec.ExecCommand;

                /** The store that {@link ExecCommand} locks in. */
                final class Planted {
                }
                """);
        List<Import> all = new ArrayList<>(SourceImports.of(SOURCES));
        all.addAll(planted);

        assertThat(crossings(all)).containsExactlyElementsOf(planted);
    }

    /** Imports that go against the layering (by the first part of the package below dev.dlock.cli). */
    static List<Import> crossings(List<Import> imports) {
        return imports.stream().filter(i -> {
            String from = part(i.fromPackage());
            String to = part(i.imported());
            if (to == null || from == null || from.equals(to)) {
                return false;
            }
            boolean toCommand = COMMANDS.contains(to);
            return switch (from) {
                case "common" -> true;
                case "store", "terminal" -> toCommand;
                default -> COMMANDS.contains(from) && toCommand;
            };
        }).toList();
    }

    /** The package part below dev.dlock.cli ("" for the root), or null outside the CLI. */
    private static String part(String name) {
        if (!name.startsWith("dev.dlock.cli.") && !name.equals("dev.dlock.cli")) {
            return null;
        }
        String rest = name.equals("dev.dlock.cli") ? "" : name.substring("dev.dlock.cli.".length());
        String first = rest.contains(".") ? rest.substring(0, rest.indexOf('.')) : rest;
        return first.isEmpty() || Character.isUpperCase(first.charAt(0)) ? "" : first;
    }
}
