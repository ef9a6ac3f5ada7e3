package dev.dlock.cli;

import dev.dlock.cli.terminal.Terminal;

/** A child JVM that prints whether {@link Terminal} takes it for interactive. */
public final class TerminalProbe {
    public static void main(String[] args) {
        System.out.println("interactive=" + Terminal.isInteractive());
    }
}
