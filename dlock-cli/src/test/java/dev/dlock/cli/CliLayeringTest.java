package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The CLI is an application of dlock like any other: it uses the public API (dev.dlock) alone,
 * never an internal type, not even in a comment's link, so an internal change never breaks it.
 */
class CliLayeringTest {

    @Test
    void theCliNamesNothingOfDlocksInternals() throws IOException {
        Path sources = Path.of("src", "main", "java");
        try (Stream<Path> files = Files.walk(sources)) {
            List<String> naming = files.filter(file -> file.toString().endsWith(".java"))
                    .filter(file -> read(file).contains("dev.dlock.internal"))
                    .map(file -> sources.relativize(file).toString())
                    .toList();
            assertThat(naming).isEmpty();
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
