package dev.dlock.cli.exec;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The perl program {@code start_command.pl} that {@code exec} puts in front of the command: the
 * command starts with the signal mask and the ignored signals dlock started with, not with those a
 * Java thread has (SIGQUIT blocked, signals 32 and 33 ignored), and not at all when the JVM died
 * before setpriv's parent-death signal was set. What dlock started with: the mask of the JVM's
 * first thread, which the JVM leaves alone, and the process's ignored signals (the JVM ignores
 * none of its own).
 */
final class StartCommand {

    private static final String SCRIPT = read();

    private StartCommand() {
    }

    /**
     * {@code perl -e SCRIPT PID MASK IGNORED NR}, to be followed by the command; empty without perl
     * or without /proc (not Linux): the command then starts with the JVM's signals.
     */
    static List<String> arguments(Path perl) {
        if (perl == null) {
            return List.of();
        }
        String status;
        try {
            status = Files.readString(Path.of("/proc/self/status"));
        } catch (IOException | UnsupportedOperationException e) {
            return List.of();
        }
        String mask = field(status, "SigBlk");
        String ignored = field(status, "SigIgn");
        if (mask == null || ignored == null) {
            return List.of();
        }
        return List.of(perl.toString(), "-e", SCRIPT, Long.toString(ProcessHandle.current().pid()), mask, ignored,
                Integer.toString(rtSigactionNumber()));
    }

    /** A hex field of /proc/PID/status, or null. */
    private static String field(String status, String name) {
        for (String line : status.split("\n")) {
            if (line.startsWith(name + ":")) {
                String value = line.substring(name.length() + 1).strip();
                return value.matches("[0-9a-fA-F]+") ? value : null;
            }
        }
        return null;
    }

    /** rt_sigaction's system call number where it is known; 0 leaves signals 32 and up as they are. */
    private static int rtSigactionNumber() {
        return switch (System.getProperty("os.arch", "")) {
            case "amd64", "x86_64" -> 13;
            case "aarch64", "arm64" -> 134;
            default -> 0;
        };
    }

    private static String read() {
        try (InputStream in = StartCommand.class.getResourceAsStream("start_command.pl")) {
            if (in == null) {
                throw new IllegalStateException("start_command.pl is missing from dlock's jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
