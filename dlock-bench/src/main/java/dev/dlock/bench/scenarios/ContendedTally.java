package dev.dlock.bench.scenarios;

import dev.dlock.bench.Metric;
import dev.dlock.bench.Samples;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What one thread of a contended run measured: its acquisitions, their waits and handoff gaps,
 * and how many it took over from itself. Written by its thread only; read once the run stopped.
 * A child process of {@code contended-processes} sends its threads' tallies to the parent as
 * bytes ({@link #writeTo}, {@link #readFrom}), and the parent computes the figures of all of them.
 */
public final class ContendedTally {

    private final int thread;
    private long acquisitions;
    private long sameThread;
    private final Samples waits = new Samples();
    private final Samples gaps = new Samples();

    /** @param thread the thread's number over the whole run (over every process) */
    public ContendedTally(int thread) {
        this.thread = thread;
    }

    int thread() {
        return thread;
    }

    /** One measured acquisition: asked at {@code start}, got it at {@code acquired}, after that release. */
    public void acquired(long start, long acquired, int previousThread, long previousRelease) {
        acquisitions++;
        waits.add(acquired - start);
        if (previousThread >= 0) {
            gaps.add(acquired - previousRelease);
            if (previousThread == thread) {
                sameThread++;
            }
        }
    }

    public void writeTo(DataOutputStream out) throws IOException {
        out.writeInt(thread);
        out.writeLong(acquisitions);
        out.writeLong(sameThread);
        for (Samples samples : List.of(waits, gaps)) {
            out.writeInt(samples.size());
            for (int i = 0; i < samples.size(); i++) {
                out.writeLong(samples.get(i));
            }
        }
    }

    public static ContendedTally readFrom(DataInputStream in) throws IOException {
        ContendedTally tally = new ContendedTally(in.readInt());
        tally.acquisitions = in.readLong();
        tally.sameThread = in.readLong();
        for (Samples samples : List.of(tally.waits, tally.gaps)) {
            int size = in.readInt();
            for (int i = 0; i < size; i++) {
                samples.add(in.readLong());
            }
        }
        return tally;
    }

    /** The contended figures of every thread's tally, over {@code measuredNanos}. */
    public static Map<Metric, Double> figures(List<ContendedTally> tallies, long measuredNanos, long violations) {
        long total = 0;
        long min = Long.MAX_VALUE;
        long max = 0;
        double sumSquares = 0;
        long same = 0;
        List<Samples> waits = new ArrayList<>();
        List<Samples> gaps = new ArrayList<>();
        for (ContendedTally tally : tallies) {
            total += tally.acquisitions;
            min = Math.min(min, tally.acquisitions);
            max = Math.max(max, tally.acquisitions);
            sumSquares += (double) tally.acquisitions * tally.acquisitions;
            same += tally.sameThread;
            waits.add(tally.waits);
            gaps.add(tally.gaps);
        }
        long[] sortedWaits = Samples.sorted(waits);
        long[] sortedGaps = Samples.sorted(gaps);
        Map<Metric, Double> result = new EnumMap<>(Metric.class);
        result.put(Metric.ACQUISITIONS, total * 1e9 / measuredNanos);
        result.put(Metric.THREAD_MIN, (double) min);
        result.put(Metric.THREAD_MAX, (double) max);
        result.put(Metric.JAIN, sumSquares == 0 ? 0 : (double) total * total / (tallies.size() * sumSquares));
        result.put(Metric.WAIT_P50, Samples.percentileMicros(sortedWaits, 50));
        result.put(Metric.WAIT_P99, Samples.percentileMicros(sortedWaits, 99));
        result.put(Metric.HANDOFF_P50, Samples.percentileMicros(sortedGaps, 50));
        result.put(Metric.HANDOFF_P99, Samples.percentileMicros(sortedGaps, 99));
        result.put(Metric.SAME_THREAD, sortedGaps.length == 0 ? 0 : 100.0 * same / sortedGaps.length);
        result.put(Metric.VIOLATIONS, (double) violations);
        return result;
    }
}
