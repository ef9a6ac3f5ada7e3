package dev.dlock.cli.exec;

import dev.dlock.cli.common.PlantedCommon;

/** The other half of {@link PlantedCommon}'s cycle (test-only). */
public final class PlantedExec {

    private PlantedExec() {
    }

    public static String base() {
        return PlantedCommon.command();
    }
}
