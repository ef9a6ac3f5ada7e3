package dev.dlock.cli;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real terminal for a test: one tmux session on a tmux server of its own (its own socket, no
 * configuration file), so that nothing of the user's tmux is touched. {@link #close()} kills the
 * server and with it whatever runs in the session.
 */
final class Tmux implements AutoCloseable {

    private static final AtomicInteger SESSIONS = new AtomicInteger();

    private final String socket;
    private final String session = "dlock";
    private Path socketFile;

    private Tmux(String socket) {
        this.socket = socket;
    }

    /** Skips the test, saying why, when tmux is not on the PATH. */
    static void assumeInstalled() {
        boolean found;
        try {
            Process version = new ProcessBuilder("tmux", "-V").redirectErrorStream(true).start();
            found = version.waitFor(30, TimeUnit.SECONDS) && version.exitValue() == 0;
        } catch (IOException e) {
            found = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        assumeTrue(found, "skipped: tmux(1) is needed to run dlock top at a real terminal (apt-get install tmux)");
    }

    /**
     * Runs {@code shellCommand} in a new {@code columns} x {@code rows} window. The pane stays
     * after the command ends (remain-on-exit), so that its screen and state can still be read.
     */
    static Tmux start(int columns, int rows, String shellCommand) {
        Tmux tmux = new Tmux("dlock-test-" + ProcessHandle.current().pid() + "-" + SESSIONS.incrementAndGet());
        tmux.run("-f", "/dev/null", "new-session", "-d", "-s", tmux.session, "-x", Integer.toString(columns),
                "-y", Integer.toString(rows), shellCommand, ";", "set-option", "-t", tmux.session, "remain-on-exit", "on");
        tmux.socketFile = Path.of(tmux.pane("#{socket_path}"));
        return tmux;
    }

    /** The visible screen of the pane, as text. */
    String screen() {
        return run("capture-pane", "-p", "-t", session);
    }

    /** A tmux format about the pane, e.g. {@code #{pane_dead}}, {@code #{alternate_on}}, {@code #{pane_tty}}. */
    String pane(String format) {
        return run("display-message", "-p", "-t", session, format).strip();
    }

    /** Types keys into the pane, as tmux names them ({@code q}, {@code C-c}). */
    void sendKeys(String keys) {
        run("send-keys", "-t", session, keys);
    }

    @Override
    public void close() {
        try {
            run("kill-server");
        } catch (IllegalStateException alreadyGone) {
            // the server ended with its last session
        }
        try {
            if (socketFile != null) {
                Files.deleteIfExists(socketFile); // a killed server may leave it behind
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String run(String... args) {
        List<String> command = new ArrayList<>(List.of("tmux", "-L", socket));
        command.addAll(List.of(args));
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            // the session's server, started by the first command, passes its environment on to dlock
            builder.environment().putAll(Cli.LOADED_MACHINE);
            Process tmux = builder.start();
            String output = new String(tmux.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!tmux.waitFor(30, TimeUnit.SECONDS) || tmux.exitValue() != 0) {
                tmux.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
            }
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
