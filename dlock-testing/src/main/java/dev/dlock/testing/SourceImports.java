package dev.dlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The imports of Java sources as written, static ones and those made only for a Javadoc link
 * included: what a reader sees, where a class file keeps only what the code uses. For the checks
 * that hold a module's sources to the layering its architecture test holds its classes to.
 */
public final class SourceImports {

    private static final Pattern IMPORT = Pattern.compile("^import\\s+(?:static\\s+)?([\\w.]+?)(?:\\.\\*)?\\s*;",
            Pattern.MULTILINE);

    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);

    /** One import of one source file: the file (relative to its source root), its package, the name imported. */
    public record Import(String file, String fromPackage, String imported) {
    }

    private SourceImports() {
    }

    /** Every import of every .java file below {@code sources}. */
    public static List<Import> of(Path sources) {
        try (Stream<Path> files = Files.walk(sources)) {
            return files.filter(file -> file.toString().endsWith(".java"))
                    .flatMap(file -> of(sources.relativize(file).toString(), read(file)).stream())
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The imports of one source file's text (a planted one, in a test of the check). */
    public static List<Import> of(String file, String source) {
        Matcher packageName = PACKAGE.matcher(source);
        String from = packageName.find() ? packageName.group(1) : "";
        List<Import> imports = new ArrayList<>();
        Matcher matcher = IMPORT.matcher(source);
        while (matcher.find()) {
            imports.add(new Import(file, from, matcher.group(1)));
        }
        return imports;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
