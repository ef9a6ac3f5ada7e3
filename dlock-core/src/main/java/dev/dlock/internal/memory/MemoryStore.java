package dev.dlock.internal.memory;

import dev.dlock.LockHolder;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.AcquireRequest;
import dev.dlock.internal.store.ClientRecordEntry;
import dev.dlock.internal.store.HeldLock;
import dev.dlock.internal.store.LockHolds;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockState;
import dev.dlock.internal.store.LockStore;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.Renewal;
import dev.dlock.internal.store.WakeUpSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * One client's view of the in-memory locks of its JVM ({@link MemorySpace}): every operation is
 * decided at once under the space's monitor by {@link MemoryRules}, and answered on the client's
 * own store thread, as a connection's replies would be, so that nothing of the client runs inside
 * another client's call. For tests and local development: the locks live and die with the JVM.
 */
public final class MemoryStore implements LockStore {

    private final MemorySpace space;
    private final MemoryRules rules;
    private final String keyPrefix;
    private final ExecutorService thread;
    private final MemoryWakeUps wakeUps;

    public MemoryStore(MemorySpace space, String keyPrefix) {
        this.space = space;
        this.keyPrefix = keyPrefix;
        this.rules = new MemoryRules(space);
        this.thread = Executors.newSingleThreadExecutor(runnable -> {
            Thread daemon = new Thread(runnable, "dlock-memory");
            daemon.setDaemon(true);
            return daemon;
        });
        this.wakeUps = new MemoryWakeUps(space, this::runOnThread);
    }

    private void runOnThread(Runnable task) {
        try {
            thread.execute(task);
        } catch (RejectedExecutionException closed) {
            // the client closed: its messages go nowhere
        }
    }

    /** The decision, made now; the answer, on the store thread. */
    private <T> CompletableFuture<T> answer(Supplier<T> decision) {
        CompletableFuture<T> reply = new CompletableFuture<>();
        T value;
        try {
            value = decision.get();
        } catch (RuntimeException e) {
            reply.completeExceptionally(e);
            return reply;
        }
        try {
            thread.execute(() -> reply.complete(value));
        } catch (RejectedExecutionException closed) {
            reply.complete(value);
        }
        return reply;
    }

    @Override
    public String describe() {
        return "memory (this JVM only)";
    }

    @Override
    public WakeUpSource wakeUps() {
        return wakeUps;
    }

    @Override
    public CompletableFuture<AcquireReply> acquire(LockTarget target, LockKind kind, AcquireRequest request) {
        long startNanos = System.nanoTime();
        return answer(() -> rules.acquire(target, kind, request, startNanos));
    }

    @Override
    public CompletableFuture<Long> release(LockTarget target, LockKind kind, String owner, long token) {
        return answer(() -> rules.release(target, kind, owner));
    }

    @Override
    public CompletableFuture<Void> abandon(LockTarget target, LockKind kind, String owner) {
        return answer(() -> {
            rules.abandon(target, owner);
            return null;
        });
    }

    @Override
    public CompletableFuture<Void> leave(LockTarget target, LockKind kind, String waiterId) {
        return answer(() -> {
            rules.leave(target, waiterId);
            return null;
        });
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(LockTarget target) {
        return answer(() -> rules.forceRelease(target, keyPrefix));
    }

    @Override
    public CompletableFuture<Renewal[]> renew(List<HeldLock> holds, long leaseMs) {
        return answer(() -> rules.renew(holds, leaseMs));
    }

    @Override
    public CompletableFuture<LockState> inspect(LockTarget target, LockKind kind) {
        return answer(() -> rules.inspect(target, kind));
    }

    @Override
    public CompletableFuture<LockHolds> holds(LockTarget target) {
        return answer(() -> rules.holds(target));
    }

    @Override
    public CompletableFuture<List<String>> lockNames(String namePattern) {
        Pattern names = glob(namePattern);
        return answer(() -> {
            List<String> found = new ArrayList<>();
            List<String> keys;
            synchronized (space) {
                keys = space.keys(System.nanoTime());
            }
            for (String key : keys) {
                if (key.startsWith(keyPrefix + "{") && key.endsWith("}")) {
                    String name = key.substring(keyPrefix.length() + 1, key.length() - 1);
                    if (names.matcher(name).matches()) {
                        found.add(name);
                    }
                }
            }
            found.sort(Comparator.naturalOrder());
            return found;
        });
    }

    /** Redis's glob: {@code *}, {@code ?}, {@code [...]} and {@code \} escapes. */
    public static Pattern glob(String glob) {
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '*') {
                regex.append(".*");
            } else if (c == '?') {
                regex.append('.');
            } else if (c == '\\' && i + 1 < glob.length()) {
                regex.append(Pattern.quote(String.valueOf(glob.charAt(++i))));
            } else if (c == '[' && glob.indexOf(']', i + 1) > i + 1) {
                int end = glob.indexOf(']', i + 1);
                String set = glob.substring(i + 1, end);
                regex.append('[').append(set.startsWith("^") ? "^" + set.substring(1).replace("[", "\\[")
                        : set.replace("[", "\\[")).append(']');
                i = end;
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }

    @Override
    public CompletableFuture<Long> waitingCount(LockTarget target) {
        return answer(() -> space.subscribers(target.channel()));
    }

    @Override
    public CompletableFuture<Void> writeClientRecord(ClientRecordEntry entry) {
        return answer(() -> {
            space.writeRecord(recordKey(entry.clientId()), entry.clientName(), entry.host(), entry.pid(), entry.replace(),
                    entry.threads(), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(entry.ttlMs()));
            return null;
        });
    }

    @Override
    public CompletableFuture<Void> dropClientRecord(String clientId) {
        return answer(() -> {
            space.dropRecord(recordKey(clientId));
            return null;
        });
    }

    @Override
    public CompletableFuture<Optional<LockHolder>> readClientRecord(String clientId, String threadId) {
        return answer(() -> space.readRecord(recordKey(clientId), threadId));
    }

    private String recordKey(String clientId) {
        return keyPrefix + "client:" + clientId;
    }

    @Override
    public void close() {
        wakeUps.close();
        thread.shutdown();
    }
}
