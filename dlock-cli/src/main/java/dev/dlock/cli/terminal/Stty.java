package dev.dlock.cli.terminal;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The controlling terminal's settings, through stty(1) run on {@code /dev/tty}: Java has no
 * portable way to read keys one at a time or to ask a terminal's size.
 */
public final class Stty {

    private static final File TTY = new File("/dev/tty");
    private static final long TIMEOUT_SECONDS = 5;

    private Stty() {
    }

    /** The settings in a form {@link #restore(String)} takes back ({@code stty -g}); empty without stty or a terminal. */
    static Optional<String> save() {
        return run("-g");
    }

    /** Keys reach the program one at a time, without Enter and without echo; Ctrl-C still signals. */
    static boolean keysAtOnce() {
        return run("-icanon", "-echo", "min", "1").isPresent();
    }

    static void restore(String saved) {
        run(saved);
    }

    /** Rows and columns; empty when unknown. */
    public static Optional<int[]> size() {
        return run("size").flatMap(text -> {
            String[] parts = text.strip().split("\\s+");
            try {
                int rows = Integer.parseInt(parts[0]);
                int columns = Integer.parseInt(parts[1]);
                return rows > 0 && columns > 0 ? Optional.of(new int[] {rows, columns}) : Optional.empty();
            } catch (RuntimeException e) {
                return Optional.empty();
            }
        });
    }

    /** stty's output when it succeeded, else empty: the view then simply does without. */
    private static Optional<String> run(String... args) {
        String[] command = new String[args.length + 1];
        command[0] = "stty";
        System.arraycopy(args, 0, command, 1, args.length);
        try {
            Process stty = new ProcessBuilder(command)
                    .redirectInput(TTY)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            String output = new String(stty.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!stty.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                stty.destroyForcibly();
                return Optional.empty();
            }
            return stty.exitValue() == 0 ? Optional.of(output) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
