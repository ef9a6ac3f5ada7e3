package dev.dlock.internal.redis;

import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.AcquireRequest;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongBinaryOperator;

/**
 * Redlock's decision on one acquire attempt from the nodes' votes: a grant (the largest token any
 * granting node proposed, valid for the lease less the time spent and the drift) when a quorum
 * granted in time, else a refusal; an attempt that did not win is released wherever it may have
 * been granted. A fair waiter's ticket is agreed here.
 */
final class QuorumAcquire {

    /** A node's vote on an acquire: granted or not. */
    static final Function<List<?>, Quorum.Vote> GRANTED =
            reply -> Replies.acquire(reply, 0) instanceof AcquireReply.Granted ? Quorum.Vote.YES : Quorum.Vote.NO;

    private final int quorum;
    private final KindScripts.Floor floor;
    private final Ticker ticker;
    /** A grant's validity from its start and lease (see {@link QuorumStore#validUntilNanos}). */
    private final LongBinaryOperator validity;

    QuorumAcquire(int quorum, KindScripts.Floor floor, Ticker ticker, LongBinaryOperator validity) {
        this.quorum = quorum;
        this.floor = floor;
        this.ticker = ticker;
        this.validity = validity;
    }

    AcquireReply decide(Quorum.Votes<List<?>> votes, LockTarget target, LockKind kind,
                         AcquireRequest request, long startNanos) {
        long token = 0;
        int holdCount = 0;
        long retryAfterMs = Long.MAX_VALUE;
        List<Long> tickets = new ArrayList<>();
        AcquireReply.PermitsDiffer permitsDiffer = null;
        for (int i = 0; i < votes.size(); i++) {
            List<?> reply = votes.reply(i);
            AcquireReply decoded = reply == null ? null : Replies.acquire(reply, 0);
            if (decoded instanceof AcquireReply.Granted grant) {
                token = Math.max(token, grant.token());
                holdCount = Math.max(holdCount, grant.holdCount());
            } else if (decoded instanceof AcquireReply.Busy busy) {
                retryAfterMs = Math.min(retryAfterMs, Math.max(0, busy.retryAfterMs()));
                if (busy.ticket() > 0) {
                    tickets.add(busy.ticket());
                }
            } else if (decoded instanceof AcquireReply.PermitsDiffer differ) {
                permitsDiffer = differ;
            }
        }
        if (votes.verdict(GRANTED) == Quorum.Verdict.WON) {
            long validUntil = validity.applyAsLong(startNanos, request.leaseMs());
            boolean inTime = validUntil - ticker.nanoTime() > 0;
            if (inTime && (!kind.grantsSlots()
                    || PermitSlots.keepAgreed(votes, quorum, KindScripts.abandon(kind, target, request.owner(), floor, null)))) {
                return new AcquireReply.Granted(token, holdCount, validUntil);
            }
            // granted too slowly to be of use, or a semaphore's permit on different slots: give it
            // back and try again
            abandonUnsettled(votes, target, kind, request, true);
            return new AcquireReply.Busy(0, true, agreedTicket(request, tickets));
        }
        boolean reentry = request.reentry();
        if (!reentry) {
            abandonUnsettled(votes, target, kind, request, false);
        }
        if (permitsDiffer != null) {
            return permitsDiffer;
        }
        if (votes.reachable() < quorum) {
            throw votes.failed(target.name(), (reentry ? "re-entry" : "acquire") + " failed for lock '" + target.name()
                    + "': no quorum reachable (need " + quorum + " of " + votes.size() + "): ",
                    reentry ? "" : "; a best-effort release was sent to every node");
        }
        if (reentry) {
            // with the re-entry flag a node refuses only when the caller no longer owns the lock there
            return new AcquireReply.LostOnReentry();
        }
        return new AcquireReply.Busy(retryAfterMs == Long.MAX_VALUE ? 0 : retryAfterMs,
                votes.count(GRANTED, Quorum.Vote.YES) > 0, agreedTicket(request, tickets));
    }

    /**
     * A fair waiter's place, the same on every node: each node that queued it first proposed its
     * own server time; the median of the proposals seen is kept and sent on every later attempt,
     * so that all nodes order the waiters alike (different orders per node would let every waiter
     * win a minority and no one a quorum, again and again).
     */
    private static long agreedTicket(AcquireRequest request, List<Long> tickets) {
        if (request.ticket() > 0 || tickets.isEmpty()) {
            return request.ticket();
        }
        tickets.sort(null);
        return tickets.get(tickets.size() / 2);
    }

    /**
     * Releases a failed attempt wherever it may have been granted: on nodes that granted, failed or
     * have not answered yet (their grant may still come; the release queues behind it). A fair
     * waiter that goes on waiting keeps its place there.
     */
    private void abandonUnsettled(Quorum.Votes<List<?>> votes, LockTarget target, LockKind kind, AcquireRequest request,
                                  boolean everywhere) {
        ScriptCall abandon = KindScripts.abandon(kind, target, request.owner(), floor, request.mayWait() ? request : null);
        for (int i = 0; i < votes.size(); i++) {
            List<?> reply = votes.reply(i);
            boolean refused = reply != null && GRANTED.apply(reply) == Quorum.Vote.NO;
            if (everywhere || !refused) {
                abandon.on(votes.node(i)).exceptionally(error -> null);
            }
        }
    }
}
