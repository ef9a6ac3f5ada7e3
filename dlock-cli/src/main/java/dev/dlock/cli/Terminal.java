package dev.dlock.cli;

import java.io.Console;
import java.lang.reflect.Method;

/** Whether dlock runs at a terminal, so that Ctrl-C and a hang-up reach its command by themselves. */
final class Terminal {

    private Terminal() {
    }

    /**
     * Up to JDK 21 {@link System#console()} is non-null only when stdin and stdout are a terminal;
     * from JDK 22 on it is non-null even when they are redirected, and {@code Console.isTerminal()}
     * (called by reflection: dlock is built for Java 17) tells.
     */
    static boolean isInteractive() {
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
