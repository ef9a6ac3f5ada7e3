package dev.dlock.faults;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** The client processes of one phase: API JVMs and {@code dlock exec} loops, started and killed by the campaign. */
final class Workers implements AutoCloseable {

    /** A JVM with a small heap that starts fast: a campaign runs several at once on small machines. */
    static final List<String> JVM_OPTIONS = List.of("-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");

    /** One client process; {@code clock} says how its wall clock was skewed, or is empty. */
    record Worker(String proc, String kind, String clock, Process process, Path log,
                  java.util.function.Supplier<Worker> replacement) {
    }

    private final Path dir;
    private final String resourceHost;
    private final int resourcePort;
    private final List<Worker> running = new CopyOnWriteArrayList<>();
    private final List<Worker> everStarted = new CopyOnWriteArrayList<>();
    private int started;

    Workers(Path dir, String resourceHost, int resourcePort) {
        this.dir = dir;
        this.resourceHost = resourceHost;
        this.resourcePort = resourcePort;
    }

    List<Worker> running() {
        return running;
    }

    /** Every client started, killed ones too. */
    List<Worker> everStarted() {
        return everStarted;
    }

    /**
     * Starts a JVM running {@link ApiWorker}.
     *
     * @param wrapper  a command to run it under ({@code ip netns exec NS}), or empty
     * @param clock    its wall clock's skew, or null for the true clock
     */
    Worker startApi(String phase, List<String> wrapper, SkewedClock clock, String resourceHostSeen, String topology,
                    String uris, List<String> locks, long leaseMs, long waitMs, long seed) {
        String proc = phase.charAt(0) + "api" + (++started);
        List<String> cmd = new ArrayList<>(wrapper);
        cmd.add(javaExecutable());
        cmd.addAll(JVM_OPTIONS);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), ApiWorker.class.getName(),
                resourceHostSeen, Integer.toString(resourcePort), proc, Long.toString(leaseMs), Long.toString(waitMs),
                Long.toString(seed + started), String.join(",", locks), topology, uris));
        Map<String, String> env = clock == null ? Map.of() : clock.environment();
        return start(proc, "api", clock == null ? "" : clock.label(), cmd, env, () -> startApi(phase, wrapper, clock,
                resourceHostSeen, topology, uris, locks, leaseMs, waitMs, seed + 1000));
    }

    /** Starts a shell loop of {@code dlock exec} runs whose command does one fenced read-modify-write. */
    Worker startExec(String phase, List<String> topologyOptions, List<String> locks, long leaseMs, long waitMs) {
        String proc = phase.charAt(0) + "exec" + (++started);
        Path script = dir.resolve("rmw.sh");
        try {
            if (!Files.exists(script)) {
                Files.writeString(script, """
                        #!/usr/bin/env bash
                        # one fenced read-modify-write under dlock exec: PROC LOCK HOST PORT
                        proc=$1; lock=$2; t=$DLOCK_FENCING_TOKEN
                        exec 3<>/dev/tcp/$3/$4 || exit 3
                        ask() { echo "$1" >&3; read -r reply <&3; }
                        ask "ACQ $proc $lock $t -1"
                        if [ "$reply" != OK ]; then ask "REL $proc $lock $t"; exit 0; fi
                        ask "READ $proc $lock $t"; value=${reply#VALUE }
                        sleep 0.$((RANDOM % 3))
                        ask "WRITE $proc $lock $t $value -1"
                        ask "REL $proc $lock $t"
                        """);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String dlock = javaExecutable() + " " + String.join(" ", JVM_OPTIONS) + " -cp '" + System.getProperty("java.class.path")
                + "' dev.dlock.cli.Main " + String.join(" ", topologyOptions.stream().map(o -> "'" + o + "'").toList());
        String loop = "locks=(" + String.join(" ", locks) + "); while :; do lock=${locks[$((RANDOM % ${#locks[@]}))]}; "
                + dlock + " exec --wait " + waitMs + "ms --lease " + leaseMs + "ms \"$lock\" -- bash '" + script + "' "
                + proc + " \"$lock\" " + resourceHost + " " + resourcePort + "; rc=$?; "
                + "exec 3<>/dev/tcp/" + resourceHost + "/" + resourcePort + " && { echo \"EXIT " + proc
                + " $lock $rc\" >&3; read -r -t 5 reply <&3; exec 3>&-; }; done";
        return start(proc, "exec", "", List.of("bash", "-c", loop), Map.of(),
                () -> startExec(phase, topologyOptions, locks, leaseMs, waitMs));
    }

    private Worker start(String proc, String kind, String clock, List<String> cmd, Map<String, String> env,
                         java.util.function.Supplier<Worker> replacement) {
        Path log = dir.resolve(proc + ".log");
        ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().remove("REDIS_URL");
        builder.environment().remove("DLOCK_POSTGRES_URL");
        builder.environment().putAll(env);
        try {
            Worker worker = new Worker(proc, kind, clock, builder.start(), log, replacement);
            running.add(worker);
            everStarted.add(worker);
            return worker;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + cmd.get(0), e);
        }
    }

    /** SIGKILL of the worker and of everything it started (an exec loop's dlock and its command). */
    void kill(Worker worker) {
        running.remove(worker);
        worker.process().descendants().forEach(ProcessHandle::destroyForcibly);
        worker.process().destroyForcibly();
        try {
            worker.process().waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void signal(long pid, String signal) {
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    @Override
    public void close() {
        for (Worker worker : List.copyOf(running)) {
            signal(worker.process().pid(), "CONT");
            kill(worker);
        }
    }
}
