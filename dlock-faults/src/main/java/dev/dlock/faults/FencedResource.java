package dev.dlock.faults;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The resource the clients protect with their locks, and the campaign's recorder: one counter per
 * lock, read and written over TCP (one request line, one reply line), fenced: an acquisition or a
 * write whose token is lower than the highest the resource has accepted for that lock is refused
 * ({@code FENCED}). Registering an acquisition ({@code ACQ}) raises the fence, so a holder that lost
 * its lock cannot write once its successor has announced itself. Every request is recorded as an
 * {@link Event}, stamped on arrival on this process's clock.
 *
 * <pre>
 * ACQ proc lock token validForMs [wallMs] -> OK | FENCED      (wallMs: the client's wall clock)
 * READ proc lock token                    -> VALUE n
 * WRITE proc lock token readValue validForMs -> OK | FENCED   (accepted: counter = readValue + 1)
 * REL | LOST proc lock token [reason]     -> OK
 * TIMEOUT | ERROR proc lock waitedMs [message] -> OK
 * EXIT proc lock exitCode                 -> OK               (a dlock exec process ended)
 * </pre>
 */
final class FencedResource implements AutoCloseable {

    private static final class Counter {
        long highestToken;
        long value;
        long acceptedWrites;
    }

    private final ServerSocket server;
    private final long startNanos;
    private final Map<String, Counter> counters = new HashMap<>();
    private final List<Event> history = new ArrayList<>();
    private final List<Socket> connections = new ArrayList<>();
    private volatile boolean closed;

    FencedResource(InetAddress bind, long startNanos) {
        this.startNanos = startNanos;
        try {
            this.server = new ServerSocket(0, 200, bind);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen for the fenced resource", e);
        }
        Thread acceptor = new Thread(this::acceptLoop, "fenced-resource");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    long nowMs() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    /** Records an entry of the campaign's own (a fault and its healing). */
    synchronized void record(String kind, String what, String detail) {
        history.add(new Event(nowMs(), "campaign", kind, what, 0, -1, false, 0, detail));
    }

    synchronized List<Event> history() {
        return List.copyOf(history);
    }

    /** The counter of each lock and how many writes to it were accepted. */
    synchronized Map<String, long[]> counters() {
        Map<String, long[]> copy = new HashMap<>();
        counters.forEach((lock, c) -> copy.put(lock, new long[] {c.value, c.acceptedWrites}));
        return copy;
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket socket = server.accept();
                synchronized (this) {
                    connections.add(socket);
                }
                Thread reader = new Thread(() -> serve(socket), "fenced-resource-client");
                reader.setDaemon(true);
                reader.start();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("fenced resource: accept failed: " + e);
                }
            }
        }
    }

    private void serve(Socket socket) {
        try (socket;
             BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
             PrintWriter out = new PrintWriter(socket.getOutputStream(), true, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.println(handle(line));
            }
        } catch (IOException | RuntimeException e) {
            // a client killed or partitioned mid-line: what it sent before is recorded
        }
    }

    synchronized String handle(String line) {
        String[] f = line.strip().split(" ", 6);
        if (f.length < 4) {
            return "ERR bad request: " + line;
        }
        String kind = f[0];
        String proc = f[1];
        String lock = f[2];
        long at = nowMs();
        Counter c = counters.computeIfAbsent(lock, name -> new Counter());
        switch (kind) {
            case "ACQ" -> {
                long token = Long.parseLong(f[3]);
                boolean ok = token >= c.highestToken;
                if (ok) {
                    c.highestToken = token;
                }
                String wall = f.length > 5 ? "wall clock " + String.format(java.util.Locale.ROOT, "%+d",
                        Long.parseLong(f[5].strip()) - System.currentTimeMillis()) + " ms" : "";
                history.add(new Event(at, proc, kind, lock, token, number(f, 4, -1), ok, 0, wall));
                return ok ? "OK" : "FENCED";
            }
            case "READ" -> {
                history.add(new Event(at, proc, kind, lock, Long.parseLong(f[3]), -1, false, c.value, ""));
                return "VALUE " + c.value;
            }
            case "WRITE" -> {
                long token = Long.parseLong(f[3]);
                long read = Long.parseLong(f[4]);
                boolean ok = token >= c.highestToken;
                String detail = "";
                if (ok) {
                    if (read != c.value) {
                        detail = "LOST UPDATE: the counter was " + c.value + " when the writer's read value " + read + " was written back plus one";
                    }
                    c.highestToken = token;
                    c.value = read + 1;
                    c.acceptedWrites++;
                }
                history.add(new Event(at, proc, kind, lock, token, number(f, 5, -1), ok, read, detail));
                return ok ? "OK" : "FENCED";
            }
            case "REL", "LOST", "EXIT" -> {
                history.add(new Event(at, proc, kind, lock, kind.equals("EXIT") ? 0 : Long.parseLong(f[3]), -1, false,
                        kind.equals("EXIT") ? Long.parseLong(f[3]) : 0, f.length > 4 ? join(f, 4) : ""));
                return "OK";
            }
            case "TIMEOUT", "ERROR" -> {
                history.add(new Event(at, proc, kind, lock, 0, -1, false, Long.parseLong(f[3]),
                        f.length > 4 ? join(f, 4) : ""));
                return "OK";
            }
            default -> {
                return "ERR unknown request: " + kind;
            }
        }
    }

    private static long number(String[] fields, int index, long otherwise) {
        return fields.length > index ? Long.parseLong(fields[index].split(" ")[0]) : otherwise;
    }

    private static String join(String[] fields, int from) {
        return String.join(" ", java.util.Arrays.copyOfRange(fields, from, fields.length));
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        synchronized (this) {
            for (Socket socket : connections) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // closing
                }
            }
        }
    }
}
