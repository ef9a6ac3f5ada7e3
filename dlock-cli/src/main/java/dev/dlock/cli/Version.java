package dev.dlock.cli;

import picocli.CommandLine.IVersionProvider;

/** The version from the jar's manifest (the shaded jar has it), else "development build". */
final class Version implements IVersionProvider {

    @Override
    public String[] getVersion() {
        String version = Version.class.getPackage().getImplementationVersion();
        return new String[] {"dlock " + (version != null ? version : "(development build)")};
    }
}
