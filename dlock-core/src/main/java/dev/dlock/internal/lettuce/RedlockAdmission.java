package dev.dlock.internal.lettuce;

import dev.dlock.NodeError;
import dev.dlock.internal.store.NodeFailure;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Whether a Redlock node's calls may be sent and its replies counted. A vote counts only from the
 * server the node is known to be on: the node is refused while that server is also another
 * node's ({@link DistinctServers}); from a drop of its link until the server behind the new link is
 * identified its calls are held back, in order, and sent then (or fail when their time is up, not
 * sent); and a reply to a call sent before a drop is not counted, because the client library
 * resends unanswered calls after reconnecting, perhaps to another server.
 */
final class RedlockAdmission implements DistinctServers.Member {

    private final String address;
    /** Set while this node's server is also another Redlock node's: every call fails with it. */
    private volatile NodeFailure sameServer;
    /** From a drop of the link until its server is identified again: false. Guarded by this. */
    private boolean serverKnown = true;
    /** Calls made while the server is not known, in the order they were made. Guarded by this. */
    private final ArrayDeque<HeldCall> heldBack = new ArrayDeque<>();
    /** The link's drops so far (written on the link's event loop only). */
    private volatile long linkDrops;

    RedlockAdmission(String address) {
        this.address = address;
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public void sameServer(String sameServerAs) {
        sameServer = sameServerAs == null ? null : new NodeFailure(NodeError.Cause.UNREACHABLE, address,
                "refused: the same server as Redlock node " + sameServerAs + "; a Redlock needs distinct servers, "
                        + "so its vote is not counted", null);
    }

    @Override
    public synchronized void serverKnown(boolean known) {
        if (!known) {
            linkDrops++;
            serverKnown = false;
            return;
        }
        serverKnown = true;
        // sending only queues the call on the link: done here, the held-back calls keep their order
        // ahead of any call made from now on; none is sent to a server that is another node's
        List<HeldCall> calls = new ArrayList<>(heldBack);
        heldBack.clear();
        for (HeldCall call : calls) {
            NodeFailure refused = refusal(call.givesBackOnly);
            if (refused == null) {
                call.sent.complete(null);
            } else {
                call.sent.completeExceptionally(refused);
            }
        }
    }

    /**
     * Why a call cannot be sent now; null when it can (or can be held back until it can). A call
     * that only gives back the caller's own may go to a server that is also another node's.
     */
    NodeFailure refusal(boolean givesBackOnly) {
        return givesBackOnly ? null : sameServer;
    }

    /** Why a call that is not held back cannot be sent now (a listing, a count); null when it can. */
    synchronized NodeFailure refusalWithoutHoldingBack(boolean connected) {
        if (!serverKnown) {
            return new NodeFailure(NodeError.Cause.UNREACHABLE, address, connected
                    ? "reconnected, but the server behind the new link is not identified yet"
                    : "not connected (reconnecting)", null);
        }
        return sameServer;
    }

    /**
     * Sends the call at once when the server is known; else once it is identified, in the order of
     * the calls, unless {@code timeoutMs} ran out before (then it fails, not sent). Its reply counts
     * only if the link did not drop while it was under way.
     */
    <T> CompletableFuture<T> send(Supplier<CompletableFuture<T>> call, boolean givesBackOnly, long timeoutMs) {
        CompletableFuture<Void> sent = new CompletableFuture<>();
        synchronized (this) {
            if (serverKnown) {
                return counted(call);
            }
            heldBack.add(new HeldCall(sent, givesBackOnly));
        }
        return sent.orTimeout(timeoutMs, TimeUnit.MILLISECONDS).handle((ok, error) -> error)
                .thenCompose(error -> error == null ? counted(call) : CompletableFuture.failedFuture(
                        error instanceof NodeFailure refused ? refused
                                : new NodeFailure(NodeError.Cause.UNREACHABLE, address, "not sent: its server was not "
                                + "identified again within " + timeoutMs + " ms of the link dropping", null)));
    }

    /** The call sent now; its reply, or a failure with an unknown outcome when the link dropped meanwhile. */
    private <T> CompletableFuture<T> counted(Supplier<CompletableFuture<T>> call) {
        long dropsAtSend = linkDrops;
        return call.get().thenCompose(result -> linkDrops == dropsAtSend
                ? CompletableFuture.completedFuture(result)
                : CompletableFuture.failedFuture(new NodeFailure(NodeError.Cause.OTHER, address,
                        "outcome unknown: the link dropped before the reply and the call was resent after "
                                + "reconnecting, perhaps to another server; this node's vote is not counted", null)));
    }

    /** A call held back until the server is known: completing {@code sent} sends it. */
    private record HeldCall(CompletableFuture<Void> sent, boolean givesBackOnly) {
    }
}
