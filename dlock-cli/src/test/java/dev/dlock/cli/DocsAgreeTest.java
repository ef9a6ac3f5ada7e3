package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.cli.common.Durations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the user docs (README.md, docs/*.md) from contradicting the code in ways that have happened
 * before: test classes they cite that no longer exist, claims about acquisitions during an outage
 * that the API's contract (the Javadoc of {@code DistributedLock} and {@code outageTolerance})
 * denies, and the CLI's output shown with durations the CLI does not print.
 */
class DocsAgreeTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern CITED_TEST = Pattern.compile("`(\\w+Test)(?:\\.\\w+)?`");
    private static final Pattern OUTPUT_DURATION = Pattern.compile("(?<![\\w.])(\\d+(?:\\.\\d+)?) s\\b");

    /**
     * What the docs once said about an outage that the API's contract denies: acquisitions with a
     * wait (or, without one, the outage tolerance) keep trying through it, only {@code tryLock()}
     * fails at once.
     */
    private static final List<String> DENIED_OUTAGE_CLAIMS = List.of(
            "fail at the first attempt", "fails at the first attempt", "fails at its next attempt",
            "fail at its next attempt", "3 killed fail fast");

    @Test
    void everyTestClassTheDocsCiteExists() throws IOException {
        Set<String> testClasses;
        try (Stream<Path> files = Files.walk(ROOT)) {
            testClasses = files.filter(file -> file.toString().contains("/src/test/java/")
                            && file.toString().endsWith(".java") && !file.toString().contains("/target/"))
                    .map(file -> file.getFileName().toString().replace(".java", "")).collect(Collectors.toSet());
        }
        List<String> missing = new ArrayList<>();
        for (Path doc : docs()) {
            Matcher cited = CITED_TEST.matcher(read(doc));
            while (cited.find()) {
                if (!testClasses.contains(cited.group(1))) {
                    missing.add(ROOT.relativize(doc) + ": " + cited.group());
                }
            }
        }
        assertThat(missing).as("test classes cited by the docs that do not exist").isEmpty();
    }

    @Test
    void noDocClaimsThatAWaitingAcquisitionGivesUpAtTheFirstFailure() {
        List<String> found = new ArrayList<>();
        for (Path doc : docs()) {
            String text = read(doc).replaceAll("\\s+", " ");
            for (String claim : DENIED_OUTAGE_CLAIMS) {
                if (text.contains(claim)) {
                    found.add(ROOT.relativize(doc) + ": \"" + claim + "\"");
                }
            }
        }
        assertThat(found).as("claims the API's contract denies (DistributedLock's Javadoc: a wait, or the "
                + "outage tolerance, is tried through an outage; only tryLock() fails at once)").isEmpty();
    }

    @Test
    void theCliOutputTheDocsShowHasDurationsAsTheCliPrintsThem() {
        List<String> wrong = new ArrayList<>();
        for (Path doc : docs()) {
            for (String output : cliOutput(read(doc))) {
                Matcher duration = OUTPUT_DURATION.matcher(output);
                while (duration.find()) {
                    double seconds = Double.parseDouble(duration.group(1));
                    String printed = Durations.format(Duration.ofMillis(Math.round(seconds * 1000)));
                    if (seconds < 60 && !printed.equals(duration.group())) {
                        wrong.add(ROOT.relativize(doc) + ": '" + duration.group() + "' where the CLI prints '"
                                + printed + "' in: " + output.strip());
                    }
                }
            }
        }
        assertThat(wrong).as("durations in the CLI's output as the docs show it").isEmpty();
    }

    @Test
    void theChecksSeeWhatTheyCheck() {
        assertThat(cliOutput("text `dlock: Redis unreachable for the whole wait of 20 s; last` more"))
                .containsExactly("dlock: Redis unreachable for the whole wait of 20 s; last");
        assertThat(cliOutput("```\nNAME  HELD\norders  4.2 s\n```\n`dlock exec --wait 20s x`"))
                .containsExactly("NAME  HELD", "orders  4.2 s");
        assertThat(docs()).extracting(doc -> doc.getFileName().toString()).contains("README.md", "cli.md", "redlock.md");
    }

    /** Inline code that starts with {@code dlock:} (an error the CLI prints), and lines of fenced blocks that are not commands. */
    static List<String> cliOutput(String markdown) {
        List<String> output = new ArrayList<>();
        Matcher inline = Pattern.compile("`(dlock: [^`]*)`").matcher(markdown);
        while (inline.find()) {
            output.add(inline.group(1));
        }
        boolean inBlock = false;
        String language = "";
        for (String line : markdown.split("\n")) {
            if (line.strip().startsWith("```")) {
                inBlock = !inBlock;
                language = inBlock ? line.strip().substring(3) : "";
                continue;
            }
            String text = line.strip();
            boolean command = text.startsWith("dlock ") || text.startsWith("$ ") || text.startsWith("#")
                    || text.startsWith("java ") || text.startsWith("./") || text.startsWith("export ");
            if (inBlock && (language.isEmpty() || language.equals("text")) && !command) {
                output.add(line);
            }
        }
        return output;
    }

    private static List<Path> docs() {
        try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
            List<Path> docs = new ArrayList<>(files.filter(file -> file.toString().endsWith(".md")).sorted().toList());
            docs.add(ROOT.resolve("README.md"));
            return docs;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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
