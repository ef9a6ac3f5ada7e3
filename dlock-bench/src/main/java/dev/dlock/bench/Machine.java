package dev.dlock.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What the report says about the machine, and how busy other processes kept it: the CPU time the
 * whole machine used during the run ({@code /proc/stat}) minus the CPU time of this process, its
 * finished children (JMH forks) and the redis-servers it started. Linux only; elsewhere the load
 * figures are left out.
 */
public final class Machine {

    private static final long TICKS_PER_SECOND = 100;

    private Machine() {
    }

    public static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }

    public static int cores() {
        return Runtime.getRuntime().availableProcessors();
    }

    public static String jdk() {
        return System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
    }

    public static String os() {
        return System.getProperty("os.name") + " " + System.getProperty("os.version");
    }

    static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /** CPU ticks: the whole machine busy, and ours. */
    record CpuSnapshot(long machineBusy, long ours, long nanos) {

        static CpuSnapshot take(List<Long> serverPids) {
            return new CpuSnapshot(machineBusyTicks(), ownTicks(serverPids), System.nanoTime());
        }

        /** Cores' worth of CPU used by other processes between {@code start} and this snapshot; NaN off Linux. */
        double otherCoresSince(CpuSnapshot start) {
            if (machineBusy < 0 || start.machineBusy < 0) {
                return Double.NaN;
            }
            double seconds = (nanos - start.nanos) / 1e9;
            double otherTicks = (machineBusy - start.machineBusy) - (ours - start.ours);
            return Math.max(0, otherTicks / TICKS_PER_SECOND / seconds);
        }
    }

    private static long machineBusyTicks() {
        try {
            String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            for (int i = 1; i < fields.length; i++) {
                if (i != 4 && i != 5) { // idle, iowait
                    busy += Long.parseLong(fields[i]);
                }
            }
            return busy;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static long ownTicks(List<Long> serverPids) {
        long ticks = processTicks("self", true);
        for (long pid : serverPids) {
            ticks += processTicks(Long.toString(pid), false);
        }
        return ticks;
    }

    /** utime + stime (+ cutime + cstime: children waited for, i.e. finished JMH forks). */
    private static long processTicks(String pid, boolean withChildren) {
        try {
            String stat = Files.readString(Path.of("/proc", pid, "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // fields[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            if (withChildren) {
                ticks += Long.parseLong(fields[13]) + Long.parseLong(fields[14]);
            }
            return ticks;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
