package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.cli.exec.ExecCommand;
import dev.dlock.cli.inspect.ListCommand;
import dev.dlock.cli.inspect.StatusCommand;
import dev.dlock.cli.inspect.TopCommand;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Which subcommands the command line builds for a given line: only the one named, else all. */
class SubcommandsForTest {

    @Test
    void theNamedSubcommandAloneStepsOverTheRootOptionsAndTheirValues() {
        assertThat(DlockCommand.subcommandsFor(new String[] {"--redis", "redis://h:1", "-v", "status", "x"}))
                .containsExactly(StatusCommand.class);
        assertThat(DlockCommand.subcommandsFor(new String[] {"--prefix", "status", "list"}))
                .containsExactly(ListCommand.class);
        assertThat(DlockCommand.subcommandsFor(new String[] {"exec", "job", "--", "status"}))
                .containsExactly(ExecCommand.class);
        assertThat(DlockCommand.subcommandsFor(new String[] {"watch"})).containsExactly(TopCommand.class);
    }

    @Test
    void everySubcommandForHelpAnUnknownNameOrNoName() {
        // each command once: an alias ("watch") names one that is there already
        long commands = DlockCommand.SUBCOMMANDS.values().stream().distinct().count();
        assertThat(DlockCommand.subcommandsFor(new String[] {"--help"})).hasSize((int) commands);
        assertThat(DlockCommand.subcommandsFor(new String[] {"help", "status"})).hasSize((int) commands);
        assertThat(DlockCommand.subcommandsFor(new String[] {"statu", "x"})).hasSize((int) commands);
        assertThat(DlockCommand.subcommandsFor(new String[] {"--redis", "redis://h:1", "--", "status"}))
                .hasSize((int) commands);
    }

    @Test
    void theScanStepsOverTheValueOfEveryRootOptionThatTakesOne() {
        Set<String> withValue = Main.commandLine(false, new LinkedHashSet<>(DlockCommand.SUBCOMMANDS.values()))
                .getCommandSpec().options().stream().filter(option -> option.arity().max() > 0)
                .flatMap(option -> Set.of(option.names()).stream()).collect(Collectors.toSet());
        assertThat(DlockCommand.OPTIONS_WITH_VALUE).isEqualTo(withValue);
    }
}
