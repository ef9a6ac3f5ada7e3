package dev.dlock.cli;

/**
 * {@code --verbose}: stack traces with errors and dlock's own log. It is read from the raw
 * arguments before parsing, because a parse error must already know whether to show its trace.
 */
final class Verbosity {

    private Verbosity() {
    }

    /** Whether {@code -v} or {@code --verbose} comes before {@code --} (after it, args are the command's). */
    static boolean requested(String[] args) {
        for (String arg : args) {
            if (arg.equals("--")) {
                return false;
            }
            if (arg.equals("--verbose") || arg.equals("-v")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Quiet by default: the command reports what matters itself, and library warnings (e.g. a lost
     * lock, which exec reports in its own words) would only repeat it. Must run before the first
     * logger is created.
     */
    static void configureLogging(boolean verbose) {
        setIfAbsent("org.slf4j.simpleLogger.logFile", "System.err");
        setIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", verbose ? "warn" : "error");
        setIfAbsent("org.slf4j.simpleLogger.log.dev.dlock", verbose ? "debug" : "error");
        // a reconnect to a server that is down, cut short by the command's exit, is not an error of the command
        setIfAbsent("org.slf4j.simpleLogger.log.io.netty.util.concurrent.DefaultPromise.rejectedExecution",
                verbose ? "warn" : "off");
        setIfAbsent("org.slf4j.simpleLogger.showDateTime", "true");
        setIfAbsent("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
