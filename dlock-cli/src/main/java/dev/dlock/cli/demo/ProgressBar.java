package dev.dlock.cli.demo;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A one-line bar redrawn in place ({@code \r}) ten times a second, at a terminal only: in a log
 * or a pipe the redraws would be noise, and the table that follows says it all.
 */
final class ProgressBar implements AutoCloseable {

    private static final int WIDTH = 30;

    private final PrintWriter out;
    private final String label;
    private final int total;
    private final AtomicInteger served;
    private final AtomicInteger sold;
    private final ScheduledExecutorService timer;

    private ProgressBar(PrintWriter out, String label, int total, AtomicInteger served, AtomicInteger sold,
                        boolean draw) {
        this.out = out;
        this.label = label;
        this.total = total;
        this.served = served;
        this.sold = sold;
        if (draw) {
            timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "dlock-demo-progress");
                thread.setDaemon(true);
                return thread;
            });
            timer.scheduleAtFixedRate(this::draw, 0, 100, TimeUnit.MILLISECONDS);
        } else {
            timer = null;
        }
    }

    static ProgressBar start(PrintWriter out, String label, int total, AtomicInteger served, AtomicInteger sold) {
        return new ProgressBar(out, label, total, served, sold, isShown());
    }

    /** Whether bars are drawn: at a terminal only. */
    static boolean isShown() {
        return System.console() != null;
    }

    /** Draws the final state and ends the line. */
    @Override
    public void close() {
        if (timer == null) {
            return;
        }
        timer.shutdownNow();
        try {
            timer.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        draw();
        synchronized (out) {
            out.println();
            out.flush();
        }
    }

    private void draw() {
        int done = served.get();
        int filled = total == 0 ? WIDTH : (int) ((long) done * WIDTH / total);
        String line = String.format(Locale.ROOT, "\r  %-7s [%s%s] %3d%%  %,d/%,d buyers  %,d sold", label,
                "#".repeat(filled), ".".repeat(WIDTH - filled), total == 0 ? 100 : (long) done * 100 / total,
                done, total, sold.get());
        synchronized (out) {
            out.print(line);
            out.flush();
        }
    }
}
