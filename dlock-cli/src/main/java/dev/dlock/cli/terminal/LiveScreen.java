package dev.dlock.cli.terminal;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * {@code dlock top} at a terminal: the view is redrawn in place on the alternate screen, keys are
 * read one at a time ({@code q} quits), and the terminal is given back as it was on every way
 * out: {@link #close()}, and a shutdown hook for Ctrl-C, SIGTERM and SIGHUP (the JVM's default for
 * them: run the hooks, exit 128 + N).
 */
public final class LiveScreen implements AutoCloseable {

    /** What the key reader and the window tell the refresh loop. */
    public enum Event { QUIT, RESIZE }

    private static final String ENTER = "\033[?1049h\033[?25l"; // alternate screen, cursor hidden
    private static final String LEAVE = "\033[?25h\033[?1049l"; // cursor shown, main screen back
    private static final String HOME = "\033[H";
    private static final String CLEAR_TO_LINE_END = "\033[K";
    private static final String CLEAR_BELOW = "\033[J";

    private final PrintWriter out;
    private final Optional<String> savedTty;
    private final Thread restoreOnExit = new Thread(this::restore, "dlock-top-restore");
    private final SignalHandler previousResize;
    private List<String> shown = List.of();
    private Optional<int[]> size;
    private boolean restored;

    private LiveScreen(PrintWriter out, BlockingQueue<Event> events) {
        this.out = out;
        this.savedTty = Stty.save();
        this.size = Stty.size();
        Runtime.getRuntime().addShutdownHook(restoreOnExit);
        savedTty.ifPresent(saved -> Stty.keysAtOnce());
        out.print(ENTER);
        out.flush();
        this.previousResize = onResize(() -> events.add(Event.RESIZE));
        Thread keys = new Thread(() -> readKeys(System.in, events), "dlock-top-keys");
        keys.setDaemon(true);
        keys.start();
    }

    /** Takes the terminal over; {@link Event}s go to {@code events}. */
    public static LiveScreen open(PrintWriter out, BlockingQueue<Event> events) {
        return new LiveScreen(out, events);
    }

    /** Draws {@code lines} over what was shown, cut to the window. */
    public synchronized void show(List<String> lines) {
        shown = lines;
        draw();
    }

    /** The window's width; {@link Integer#MAX_VALUE} when unknown. */
    public synchronized int columns() {
        return size.map(rowsAndColumns -> rowsAndColumns[1]).orElse(Integer.MAX_VALUE);
    }

    /** Reads the window's size again and draws the last lines to it. */
    public synchronized void resized() {
        size = Stty.size();
        draw();
    }

    @Override
    public void close() {
        restore();
        try {
            Runtime.getRuntime().removeShutdownHook(restoreOnExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs or has run: restore() is done once either way
        }
        if (previousResize != null) {
            Signal.handle(new Signal("WINCH"), previousResize);
        }
    }

    private void draw() {
        if (restored) {
            return; // the terminal is given back: nothing may be drawn on the main screen
        }
        List<String> lines = fitted(shown);
        StringBuilder screen = new StringBuilder(HOME);
        for (int i = 0; i < lines.size(); i++) {
            screen.append(lines.get(i)).append(CLEAR_TO_LINE_END).append(i + 1 < lines.size() ? "\r\n" : "");
        }
        out.print(screen.append(CLEAR_BELOW));
        out.flush();
    }

    /** Lines cut to the width, and to the height with a last line saying how many did not fit. */
    private List<String> fitted(List<String> lines) {
        if (size.isEmpty()) {
            return lines;
        }
        int rows = size.get()[0];
        int columns = size.get()[1];
        List<String> kept = lines;
        if (lines.size() > rows) {
            kept = new ArrayList<>(lines.subList(0, Math.max(0, rows - 1)));
            kept.add("... " + (lines.size() - kept.size()) + " more lines: make the window taller, or narrow PATTERN");
        }
        return kept.stream().map(line -> line.length() > columns ? line.substring(0, columns) : line).toList();
    }

    private synchronized void restore() {
        if (restored) {
            return;
        }
        restored = true;
        out.print(LEAVE);
        out.flush();
        savedTty.ifPresent(Stty::restore);
    }

    private static void readKeys(InputStream in, BlockingQueue<Event> events) {
        try {
            int key;
            while ((key = in.read()) != -1) {
                if (key == 'q' || key == 'Q') {
                    events.add(Event.QUIT);
                }
            }
        } catch (IOException e) {
            // no more keys: Ctrl-C and signals still end the view
        }
    }

    /** The window-size signal's handler set to {@code action}; null where the JVM has no such signal. */
    private static SignalHandler onResize(Runnable action) {
        try {
            return Signal.handle(new Signal("WINCH"), signal -> action.run());
        } catch (IllegalArgumentException notOnThisPlatform) {
            return null;
        }
    }
}
