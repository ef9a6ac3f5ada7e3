package dev.dlock.internal;

import dev.dlock.LockBackendException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Locks on one Redis: each operation is one script call. */
final class SingleNodeStore implements LockStore {

    private static final Logger LOG = LoggerFactory.getLogger(SingleNodeStore.class);

    private final RedisNode node;
    private final long commandTimeoutMs;

    SingleNodeStore(RedisNode node, long commandTimeoutMs) {
        this.node = node;
        this.commandTimeoutMs = commandTimeoutMs;
    }

    @Override
    public List<RedisNode> nodes() {
        return List.of(node);
    }

    @Override
    public String describe() {
        return node.address();
    }

    @Override
    public CompletableFuture<AcquireReply> acquire(LockTarget target, LockKind kind, AcquireRequest request) {
        long startNanos = System.nanoTime();
        return kind.acquire(target, request, null).on(node).handle((reply, error) -> {
            if (error != null) {
                throw failedAcquire(target, kind, request, error);
            }
            return Replies.acquire((List<?>) reply, validUntilNanos(startNanos, request.leaseMs()));
        });
    }

    private LockBackendException failedAcquire(LockTarget target, LockKind kind, AcquireRequest request, Throwable error) {
        LockBackendException failure = Failures.commandFailed(request.reentry() ? "re-entry" : "acquire", target.name(),
                target.key(), node, commandTimeoutMs, error);
        if (request.reentry() || !Failures.outcomeUnknown(error)) {
            return failure;
        }
        abandon(target, kind, request.owner());
        return new LockBackendException(failure.getMessage() + "; a best-effort release was sent", failure.getCause());
    }

    @Override
    public CompletableFuture<Long> release(LockTarget target, LockKind kind, String owner, long token) {
        return kind.release(target, owner, token, null).on(node).handle((reply, error) -> {
            if (error != null) {
                throw Failures.commandFailed("release", target.name(), target.key(), node, commandTimeoutMs, error);
            }
            return (Long) reply;
        });
    }

    @Override
    public boolean handsOffLocally() {
        return true;
    }

    @Override
    public CompletableFuture<HandoffReply> handOff(LockTarget target, String fromOwner, int ownSubscriptions,
                                                   String toOwner, long leaseMs, String holder) {
        long startNanos = System.nanoTime();
        return node.eval(LuaScript.HANDOFF, new String[] {target.key()}, fromOwner, target.channel(),
                Integer.toString(ownSubscriptions), toOwner, Long.toString(leaseMs), holder).handle((reply, error) -> {
                    if (error != null) {
                        throw Failures.commandFailed("release", target.name(), target.key(), node, commandTimeoutMs, error);
                    }
                    List<?> fields = (List<?>) reply;
                    long code = (Long) fields.get(0);
                    if (code == 1) {
                        AcquireReply.Granted grant = new AcquireReply.Granted(Long.parseLong(String.valueOf(fields.get(1))), 1,
                                validUntilNanos(startNanos, leaseMs));
                        return new HandoffReply(grant, false);
                    }
                    return new HandoffReply(null, code == -1);
                });
    }

    @Override
    public CompletableFuture<Void> abandon(LockTarget target, LockKind kind, String owner) {
        return bestEffort(kind.abandon(target, owner, null, null), target, "release");
    }

    @Override
    public CompletableFuture<Void> leave(LockTarget target, LockKind kind, String waiterId) {
        ScriptCall leave = kind.leave(target, waiterId);
        return leave == null ? CompletableFuture.completedFuture(null) : bestEffort(leave, target, "leave the queue of");
    }

    private CompletableFuture<Void> bestEffort(ScriptCall call, LockTarget target, String what) {
        return call.on(node).handle((reply, error) -> {
            if (error != null) {
                LOG.warn("could not {} lock '{}' on {}; its lease or deadline frees it: {}", what, target.name(),
                        node.address(), Failures.unwrap(error).toString());
            }
            return null;
        });
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(LockTarget target) {
        return node.eval(LuaScript.FORCE_RELEASE, new String[] {target.key()}, target.channel()).handle((reply, error) -> {
            if (error != null) {
                throw Failures.commandFailed("force release", target.name(), target.key(), node, commandTimeoutMs, error);
            }
            return (Long) reply == 1L;
        });
    }

    @Override
    public CompletableFuture<Renewal[]> renew(List<Hold> holds, long leaseMs) {
        return Replies.renewOn(node, holds, leaseMs).handle((renewed, error) -> {
            Renewal[] outcome = new Renewal[holds.size()];
            for (int i = 0; i < outcome.length; i++) {
                outcome[i] = error != null ? Renewal.UNKNOWN : renewed[i] == 1 ? Renewal.RENEWED : Renewal.GONE;
            }
            return outcome;
        });
    }

    @Override
    public CompletableFuture<LockState> inspect(LockTarget target, LockKind kind) {
        return kind.inspect(target).on(node).handle((reply, error) -> {
            if (error != null) {
                throw Failures.commandFailed("inspect", target.name(), target.key(), node, commandTimeoutMs, error);
            }
            return Replies.state((List<?>) reply);
        });
    }

    @Override
    public CompletableFuture<Long> waitingClients(LockTarget target) {
        return node.subscriberCount(target.channel());
    }

    @Override
    public CompletableFuture<List<String>> scan(String keyPattern) {
        return node.scan(keyPattern);
    }

    @Override
    public long validUntilNanos(long startNanos, long leaseMs) {
        return startNanos + TimeUnit.MILLISECONDS.toNanos(leaseMs);
    }

    @Override
    public void close() {
        node.close();
    }
}
