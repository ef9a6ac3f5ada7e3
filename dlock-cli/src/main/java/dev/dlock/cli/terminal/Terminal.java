package dev.dlock.cli.terminal;

import java.io.Console;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether dlock runs at a terminal, so that Ctrl-C and a hang-up reach its command by themselves. */
public final class Terminal {

    /** SIGHUP's number (as exec's SignalRelay has it; the terminal package sits below exec and names none of it). */
    private static final int SIGHUP = 1;

    private Terminal() {
    }

    /**
     * Whether a signal dlock got while at a terminal, with its command in dlock's process group,
     * reached the command as well, so that passing it on would deliver it twice. The signal's sender
     * is not known to Java, so the process's place tells ({@code /proc/self/stat}):
     * <ul>
     *   <li>a hang-up of a terminal whose session dlock leads ({@code ssh -t host dlock ...}, a tmux
     *       pane or {@code script -c} running dlock) goes to dlock alone: it did not;
     *   <li>in the terminal's foreground group, the terminal's SIGINT (Ctrl-C) and the shell's SIGHUP
     *       went to the whole group: it did;
     *   <li>in a background group the terminal sends nothing, so it came from kill(1) to dlock: it did not;
     *   <li>with the terminal gone, a SIGHUP went to the whole foreground group (sent as the session's
     *       leader ended): it did; anything else came from kill(1): it did not.
     * </ul>
     * Where this cannot be read (not Linux): it did, as dlock assumed before it could tell.
     */
    public static boolean reachedTheCommand(int signal) {
        long[] place = processPlace();
        if (place == null) {
            return true;
        }
        long pid = place[0];
        long group = place[1];
        long session = place[2];
        long foreground = place[3];
        if (signal == SIGHUP && session == pid) {
            return false;
        }
        if (foreground <= 0) {
            return signal == SIGHUP;
        }
        return group == foreground;
    }

    /** {pid, process group, session, terminal's foreground group (-1: none)}, or null when unknown. */
    private static long[] processPlace() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after the command name: state, ppid, pgrp, session, tty_nr, tpgid
            return new long[] {ProcessHandle.current().pid(), Long.parseLong(fields[2]), Long.parseLong(fields[3]),
                    Long.parseLong(fields[5])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Up to JDK 21 {@link System#console()} is non-null only when stdin and stdout are a terminal;
     * from JDK 22 on it is non-null even when they are redirected, and {@code Console.isTerminal()}
     * (called by reflection: dlock is built for Java 17) tells.
     */
    public static boolean isInteractive() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            Method isTerminal = Console.class.getMethod("isTerminal");
            return (Boolean) isTerminal.invoke(console);
        } catch (NoSuchMethodException beforeJdk22) {
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }
}
