package dev.dlock.internal.lettuce;

import dev.dlock.LockBackendException;
import dev.dlock.NodeError;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.NodeFailure;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;

/** Lettuce's errors in dlock's terms: the one place that knows Lettuce's exception types. */
public final class LettuceErrors {

    private LettuceErrors() {
    }

    /** {@code redis://host:port} or {@code rediss://...}, never with the password. */
    public static String describe(RedisURI uri) {
        if (uri.getSocket() != null) {
            return "redis-socket://" + uri.getSocket();
        }
        String scheme = uri.isSsl() ? "rediss" : "redis";
        if (!uri.getSentinels().isEmpty()) {
            // the master's address changes with failovers; name what the client resolves it through
            return scheme + "-sentinel://" + uri.getSentinels().stream().map(s -> s.getHost() + ":" + s.getPort())
                    .collect(java.util.stream.Collectors.joining(",")) + database(uri) + "?sentinelMasterId="
                    + uri.getSentinelMasterId();
        }
        return scheme + "://" + uri.getHost() + ":" + uri.getPort() + database(uri);
    }

    /** "/7" for database 7: locks in another database are other locks, so the address keeps it. */
    private static String database(RedisURI uri) {
        return uri.getDatabase() == 0 ? "" : "/" + uri.getDatabase();
    }

    /** The first connect failed: what building the client throws. */
    public static LockBackendException cannotConnect(NodeFailure failure) {
        return new LockBackendException("cannot connect to Redis at " + failure.address() + ": " + failure.getMessage(),
                failure, null, List.of(failure.toNodeError()));
    }

    /**
     * @param connected whether the command link is up now: a node that died after connecting shows
     *                  up as a timeout, since commands wait for a reconnect
     */
    public static NodeFailure translate(String address, long commandTimeoutMs, boolean connected, Throwable error) {
        Throwable cause = Failures.unwrap(error);
        if (cause instanceof NodeFailure failure) {
            return failure;
        }
        if (cause instanceof RedisCommandTimeoutException) {
            return new NodeFailure(NodeError.Cause.TIMEOUT, address, "timed out after " + commandTimeoutMs + " ms"
                    + (connected ? "" : " (not connected: unreachable)"), cause);
        }
        if (cause instanceof RedisCommandExecutionException) {
            String reply = String.valueOf(cause.getMessage());
            NodeError.Cause kind = reply.startsWith("WRONGTYPE") ? NodeError.Cause.WRONG_TYPE : NodeError.Cause.ERROR_REPLY;
            return new NodeFailure(kind, address, reply, cause);
        }
        if (cause instanceof RedisConnectionException) {
            return new NodeFailure(NodeError.Cause.UNREACHABLE, address, Failures.rootMessage(cause), cause);
        }
        return new NodeFailure(NodeError.Cause.OTHER, address, Failures.rootMessage(cause), cause);
    }

    /** The same future, failing with a {@link NodeFailure} instead of the client library's exception. */
    public static <T> CompletableFuture<T> failingAsNode(CompletableFuture<T> future, String address, long commandTimeoutMs,
                                                 BooleanSupplier connected) {
        CompletableFuture<T> translated = new CompletableFuture<>();
        future.whenComplete((value, error) -> {
            if (error != null) {
                translated.completeExceptionally(translate(address, commandTimeoutMs, connected.getAsBoolean(), error));
            } else {
                translated.complete(value);
            }
        });
        return translated;
    }

    /** The failure inside a {@link CompletionException}, as a future's callbacks see it. */
    public static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
