package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The help of every command as picocli lays it out (80 columns): no option's description broken in
 * the middle of a word, a sentence written over several lines shown in those lines (not each wrapped
 * again into a staircase), and the exit codes in order.
 */
class HelpLayoutTest {

    private static final Pattern EXIT_CODE_ROW = Pattern.compile("^ {2,4}(\\d+)  \\S.*");

    @Test
    void noOptionDescriptionIsBrokenInAWordOrWrappedAgain() {
        List<String> broken = new ArrayList<>();
        for (Map.Entry<String, CommandLine> command : commands().entrySet()) {
            String help = command.getValue().getUsageMessage(CommandLine.Help.Ansi.OFF);
            Set<String> shownWords = Set.copyOf(Arrays.asList(help.strip().split("\\s+")));
            List<String> shownLines = help.lines().map(String::strip).toList();
            for (OptionSpec option : command.getValue().getCommandSpec().options()) {
                String[] lines = option.description();
                for (int i = 0; i < lines.length; i++) {
                    String line = lines[i];
                    for (String word : line.strip().split("\\s+")) {
                        if (!word.contains("${") && !shownWords.contains(word)) {
                            broken.add(command.getKey() + " " + option.longestName() + ": '" + word + "' broken in:\n" + help);
                        }
                    }
                    // a line that stops mid-sentence goes on in the next one as written: it must be shown whole
                    boolean continued = i + 1 < lines.length && !line.strip().endsWith(".");
                    boolean wrappedAgain = continued && shownLines.stream().noneMatch(shown -> shown.endsWith(line.strip()));
                    if (wrappedAgain) {
                        broken.add(command.getKey() + " " + option.longestName() + ": line '" + line + "' wrapped again in:\n"
                                + help);
                    }
                }
            }
        }
        assertThat(broken).isEmpty();
    }

    @Test
    void theExitCodesAreListedInOrderEachOnItsOwnRow() {
        List<String> footer = commands().get("dlock").getUsageMessage(CommandLine.Help.Ansi.OFF).lines()
                .dropWhile(line -> !line.equals("Exit codes:")).skip(1).takeWhile(line -> !line.isBlank()).toList();
        assertThat(footer).isNotEmpty();
        int previous = -1;
        for (String line : footer) {
            Matcher row = EXIT_CODE_ROW.matcher(line);
            if (row.matches()) {
                int code = Integer.parseInt(row.group(1));
                assertThat(code).as("'%s' after code %d in\n%s", line, previous, String.join("\n", footer))
                        .isGreaterThan(previous);
                previous = code;
            } else {
                // a row's continuation under its text, or the last row: the command's own code
                assertThat(line).as("a line of the exit codes that is neither a code's row nor its continuation, in\n%s",
                        String.join("\n", footer)).matches(" {7}\\S.*|  else .*");
            }
        }
    }

    /** The root command and each subcommand, by qualified name. */
    private static Map<String, CommandLine> commands() {
        CommandLine root = Main.commandLine(false, new LinkedHashSet<>(DlockCommand.SUBCOMMANDS.values()));
        Map<String, CommandLine> all = new LinkedHashMap<>();
        all.put("dlock", root);
        for (CommandLine sub : root.getSubcommands().values()) {
            all.put(sub.getCommandSpec().qualifiedName(), sub);
            sub.getSubcommands().values().forEach(nested -> all.put(nested.getCommandSpec().qualifiedName(), nested));
        }
        return all;
    }
}
