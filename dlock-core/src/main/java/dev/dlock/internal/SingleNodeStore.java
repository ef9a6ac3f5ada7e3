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
    public CompletableFuture<AcquireReply> acquire(LockTarget target, String owner, long leaseMs, String holder,
                                                   boolean reentry) {
        long startNanos = System.nanoTime();
        return node.eval(LuaScript.ACQUIRE, new String[] {target.key()}, owner, Long.toString(leaseMs), holder,
                reentry ? "1" : "0").handle((reply, error) -> {
                    if (error != null) {
                        throw failedAcquire(target, owner, reentry, error);
                    }
                    return Replies.acquire((List<?>) reply, validUntilNanos(startNanos, leaseMs));
                });
    }

    private LockBackendException failedAcquire(LockTarget target, String owner, boolean reentry, Throwable error) {
        LockBackendException failure = Failures.commandFailed(reentry ? "re-entry" : "acquire", target.name(),
                target.key(), node, commandTimeoutMs, error);
        if (reentry || !Failures.outcomeUnknown(error)) {
            return failure;
        }
        abandon(target, owner);
        return new LockBackendException(failure.getMessage() + "; a best-effort release was sent", failure.getCause());
    }

    @Override
    public CompletableFuture<Long> release(LockTarget target, String owner, long token) {
        return node.eval(LuaScript.RELEASE, new String[] {target.key()}, owner, target.channel(), Long.toString(token))
                .handle((reply, error) -> {
                    if (error != null) {
                        throw Failures.commandFailed("release", target.name(), target.key(), node, commandTimeoutMs, error);
                    }
                    return (Long) reply;
                });
    }

    @Override
    public CompletableFuture<Void> abandon(LockTarget target, String owner) {
        return node.eval(LuaScript.ABANDON, new String[] {target.key()}, owner, target.channel(), "0")
                .handle((reply, error) -> {
                    if (error != null) {
                        LOG.warn("could not release lock '{}' on {}; its lease frees it: {}", target.name(),
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
    public CompletableFuture<LockState> inspect(LockTarget target) {
        return node.eval(LuaScript.INSPECT, new String[] {target.key()}).handle((reply, error) -> {
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
