package dev.dlock.cli.exec;

import dev.dlock.cli.terminal.Terminal;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import sun.misc.Signal;

/**
 * Takes SIGHUP, SIGINT and SIGTERM away from the JVM's default (run the shutdown hooks, exit) and hands
 * them to an action that changes as {@code exec} goes on: while waiting for the lock a signal
 * cancels the wait; while the command runs it is forwarded to the command, and dlock keeps
 * running until the command ends so that it can release the lock and return the command's code.
 * sun.misc.Signal is the one JDK way to do this; it lives in jdk.unsupported, which every JDK has.
 */
public final class SignalRelay {

    static final int SIGHUP = 1;
    public static final int SIGINT = 2;
    static final int SIGTERM = 15;

    private IntConsumer action;
    private int received;
    private long count;

    private SignalRelay(IntConsumer action) {
        this.action = action;
    }

    /** Installs the relay for SIGHUP, SIGINT and SIGTERM with a first action. */
    static SignalRelay install(IntConsumer action) {
        SignalRelay relay = new SignalRelay(action);
        for (String name : new String[] {"HUP", "INT", "TERM"}) {
            Signal.handle(new Signal(name), signal -> relay.deliver(signal.getNumber()));
        }
        return relay;
    }

    /** Signals received so far; pass it to {@link #switchTo} to catch those that arrive in between. */
    synchronized long count() {
        return count;
    }

    /**
     * Replaces the action. When signals arrived after {@code count()} returned {@code since}, the new
     * action gets the last of them at once, so that none falls between two actions.
     */
    synchronized void switchTo(IntConsumer next, long since) {
        this.action = next;
        if (count > since) {
            next.accept(received);
        }
    }

    /**
     * First signal: passed on, unless it reached the command already ({@link Terminal#reachedTheCommand}:
     * at a terminal, SIGINT and SIGHUP the terminal or the shell sent to the whole foreground group).
     * A further signal passed on: the user insists, SIGKILL. A signal that was not passed on does not
     * count, so that a SIGTERM after it is still a first signal.
     */
    static IntConsumer forwardingTo(ChildProcess child, boolean atTerminal, Consumer<String> verbose) {
        AtomicInteger passedOn = new AtomicInteger();
        return signal -> {
            if (signal != SignalRelay.SIGTERM && atTerminal && Terminal.reachedTheCommand(signal)) {
                verbose.accept("signal " + signal + " reached '" + child.name() + "' from the terminal: not sent again");
                return;
            }
            if (passedOn.incrementAndGet() > 1) {
                child.kill();
            } else {
                child.signal(signal);
            }
        };
    }

    /** The last signal received, or 0. */
    synchronized int received() {
        return received;
    }

    private synchronized void deliver(int signal) {
        received = signal;
        count++;
        action.accept(signal);
    }
}
