package dev.dlock.cli.common;

import dev.dlock.cli.exec.PlantedExec;

/**
 * A planted breach for {@code CliArchitectureTest}: the shared base naming a command's class, which
 * names it back (a cycle, and a layer looking up). Test-only: the rules never see it in the CLI.
 */
public final class PlantedCommon {

    private PlantedCommon() {
    }

    public static String command() {
        return PlantedExec.class.getName();
    }
}
