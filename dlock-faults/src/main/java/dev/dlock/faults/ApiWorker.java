package dev.dlock.faults;

import dev.dlock.DistributedLock;
import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.LockHandle;
import dev.dlock.LockLostException;
import dev.dlock.PostgresStore;
import dev.dlock.RedisStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A client process of the campaign using the API: in a loop, takes one of the locks (watchdog
 * lease, bounded wait), registers its token with the fenced resource, does fenced read-modify-writes
 * of the lock's counter a little apart (one to four, or for a third of the holds ten to twenty over
 * several leases), each only while its handle says the hold is valid, and releases. A refused write
 * does not end the hold; dlock saying the hold is gone does. Reports every step to the resource, which records it.
 *
 * <pre>
 * ApiWorker RESOURCE_HOST RESOURCE_PORT PROC LEASE_MS WAIT_MS SEED LOCK[,LOCK...] redis|cluster|postgres|pgbouncer URI[,URI...]
 * </pre>
 */
public final class ApiWorker {

    private final PrintWriter out;
    private final BufferedReader in;
    private final String proc;
    /** Reports a loss the moment dlock tells of it, apart from the loop, which may be asleep between writes. */
    private final ExecutorService lossReporter = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "loss-reporter");
        thread.setDaemon(true);
        return thread;
    });

    private ApiWorker(Socket socket, String proc) throws IOException {
        this.out = new PrintWriter(socket.getOutputStream(), true, StandardCharsets.UTF_8);
        this.in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        this.proc = proc;
    }

    public static void main(String[] args) throws Exception {
        String proc = args[2];
        Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
        Duration wait = Duration.ofMillis(Long.parseLong(args[4]));
        Random random = new Random(Long.parseLong(args[5]));
        List<String> locks = List.of(args[6].split(","));
        // a Sentinel URL names its sentinels with commas; a Cluster's nodes are separate URLs
        String[] uris = args[7].equals("cluster") ? args[8].split(",") : new String[] {args[8]};
        LockClientBuilder builder = LockClient.builder().defaultLease(lease).clientName(proc)
                .commandTimeout(lease.dividedBy(4)).outageTolerance(wait);
        builder = switch (args[7]) {
            case "cluster" -> builder.store(RedisStore.cluster(uris));
            case "postgres" -> builder.store(PostgresStore.url(uris[0]));
            // LISTEN does not work through PgBouncer in transaction pooling: told, rather than found out at start
            case "pgbouncer" -> builder.store(PostgresStore.url(uris[0]).polling(Duration.ofMillis(100)));
            default -> builder.store(RedisStore.standalone(uris[0]));
        };
        LockClient client = null;
        try (Socket socket = new Socket(args[0], Integer.parseInt(args[1]))) {
            ApiWorker worker = new ApiWorker(socket, proc);
            while (client == null) {
                try {
                    client = builder.build();
                } catch (LockBackendException e) {
                    worker.send("ERROR " + proc + " connect 0 " + oneLine(e));
                    Thread.sleep(500);
                }
            }
            while (true) {
                worker.round(client.getLock(locks.get(random.nextInt(locks.size()))), wait, random);
            }
        }
    }

    private void round(DistributedLock lock, Duration wait, Random random) throws Exception {
        long start = System.nanoTime();
        Optional<LockHandle> acquired;
        try {
            acquired = lock.tryAcquireAsync(wait).get();
        } catch (ExecutionException e) {
            send("ERROR " + proc + " " + lock.name() + " " + sinceMs(start) + " " + oneLine(e.getCause()));
            Thread.sleep(100);
            return;
        }
        if (acquired.isEmpty()) {
            send("TIMEOUT " + proc + " " + lock.name() + " " + sinceMs(start) + " wait " + wait.toMillis());
            return;
        }
        LockHandle handle = acquired.get();
        String hold = proc + " " + lock.name() + " " + handle.fencingToken();
        // the holder's belief ends when dlock tells it, not when the loop next looks (up to 400 ms later)
        handle.whenLost().thenAcceptAsync(lost -> send("LOST " + hold + " told by whenLost(): " + oneLine(lost)), lossReporter);
        boolean fenced = !valid(handle, hold) || !send("ACQ " + hold + " " + handle.leaseEstimate().toMillis()
                + " " + System.currentTimeMillis()).equals("OK");
        // a third of the holds are long (several leases' worth of writes), so that a fault finds holders
        // mid-hold; a refused write does not end a hold: only dlock saying the hold is gone does
        boolean longHold = random.nextInt(3) == 0;
        int writes = longHold ? 10 + random.nextInt(10) : 1 + random.nextInt(4);
        boolean told = fenced;
        for (int i = 0; i < writes && !told; i++) {
            Thread.sleep(longHold ? 250 + random.nextInt(150) : 50 + random.nextInt(200));
            if (!valid(handle, hold)) {
                told = true;
                break;
            }
            String read = send("READ " + hold);
            long value = Long.parseLong(read.substring("VALUE ".length()));
            // the validity is judged again just before the write: the read may have taken a while
            long validFor = handle.leaseEstimate().toMillis();
            if (!handle.isValid() || validFor <= 0) {
                send("LOST " + hold + " told by isValid() before a write");
                told = true;
                break;
            }
            send("WRITE " + hold + " " + value + " " + validFor);
        }
        send("REL " + hold);
        try {
            handle.release();
        } catch (LockLostException e) {
            send("LOST " + hold + " told at release: " + oneLine(e));
        } catch (LockBackendException e) {
            send("ERROR " + proc + " " + lock.name() + " 0 release: " + oneLine(e));
        }
    }

    /** Whether the hold is still valid; if not, the holder was told, and that is recorded. */
    private boolean valid(LockHandle handle, String hold) {
        if (handle.isValid()) {
            return true;
        }
        send("LOST " + hold + " told by isValid()" + (handle.whenLost().isDone() ? " and whenLost()" : ""));
        return false;
    }

    /** One request and its reply; the loop and the loss reporter take turns. */
    private synchronized String send(String line) {
        out.println(line);
        try {
            String reply = in.readLine();
            if (reply == null) {
                throw new IllegalStateException("the fenced resource closed the connection");
            }
            return reply;
        } catch (IOException e) {
            throw new IllegalStateException("the fenced resource is unreachable", e);
        }
    }

    private static long sinceMs(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private static String oneLine(Throwable e) {
        return String.valueOf(e.getMessage()).replace('\n', ' ');
    }
}
