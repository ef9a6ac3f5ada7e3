package dev.dlock.internal.redis;

import dev.dlock.LockBackendException;
import dev.dlock.NodeError;
import dev.dlock.internal.store.NodeFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Redlock's one rule for deciding: a call sent to every node at once, each bounded by the per-node
 * timeout; each node's outcome recorded (its reply, or its failure as a {@link NodeFailure}); the
 * replies classified as votes for or against; and the result settled as soon as the votes allow
 * (a quorum won, or lost), so a slow or paused node does not slow a decision the others already
 * make.
 *
 * <p>With n nodes and quorum q = n/2+1 the {@link Verdict} is {@code WON} when q voted yes,
 * {@code LOST} when more than n−q voted no (q can no longer vote yes), {@code NO_QUORUM} when the
 * nodes that answered or may still answer are fewer than q, {@code SPLIT} when yes can no longer
 * win for any other reason (votes split, some failed), else {@code PENDING}.
 */
public final class Quorum {

    public enum Vote { YES, NO }

    public enum Verdict { WON, LOST, NO_QUORUM, SPLIT, PENDING }

    /** When a call is settled, i.e. its votes handed to the caller's decision. */
    public enum Settle {
        /** At the first verdict other than PENDING. */
        AT_VERDICT,
        /** When WON or LOST, else when every node has answered. */
        AT_WIN_OR_LOSS,
        /** When every node has answered (or timed out). */
        ALL_ANSWERED
    }

    private Quorum() {
    }

    /**
     * Sends the call to every node and completes with the votes once settled. The votes are a
     * snapshot: replies arriving later do not change them, so the decision taken on them (and its
     * side effects, such as releases) is taken exactly once.
     *
     * @param classify a node's reply as a vote; for {@link Settle#ALL_ANSWERED} it may be null
     */
    public static <T> CompletableFuture<Votes<T>> call(List<RedisNode> nodes, long timeoutMs,
                                               Function<RedisNode, CompletableFuture<T>> call, Settle settle,
                                               Function<T, Vote> classify) {
        Votes<T> live = new Votes<>(nodes);
        CompletableFuture<Votes<T>> settled = new CompletableFuture<>();
        // send everything before looking at any reply: a decision taken while some node has not been
        // called yet would release there before the call arrives
        List<CompletableFuture<T>> sent = new ArrayList<>(nodes.size());
        for (RedisNode node : nodes) {
            try {
                sent.add(call.apply(node).orTimeout(timeoutMs, TimeUnit.MILLISECONDS));
            } catch (RuntimeException e) {
                sent.add(CompletableFuture.failedFuture(e));
            }
        }
        for (int i = 0; i < sent.size(); i++) {
            int index = i;
            sent.get(i).whenComplete((reply, error) -> {
                Votes<T> snapshot;
                synchronized (live) {
                    if (live.settled) {
                        return;
                    }
                    live.record(index, reply, error == null ? null : nodeFailure(nodes.get(index), error, timeoutMs));
                    live.settled = live.isSettled(settle, classify);
                    if (!live.settled) {
                        return;
                    }
                    snapshot = live.copy();
                }
                // outside the lock: the decision and the caller's next steps run on
                settled.complete(snapshot);
            });
        }
        return settled;
    }

    /** A timeout is described with the per-node timeout, whoever noticed it first. */
    private static NodeFailure nodeFailure(RedisNode node, Throwable error, long timeoutMs) {
        NodeFailure failure = RedisFailures.asNodeFailure(node, error, timeoutMs);
        if (failure.kind() != NodeError.Cause.TIMEOUT) {
            return failure;
        }
        return new NodeFailure(NodeError.Cause.TIMEOUT, node.address(), "timed out after " + timeoutMs + " ms"
                + (node.isConnected() ? "" : " (not connected: unreachable)"), failure.getCause());
    }

    /** Every node's outcome of one call, by node, in the order of the nodes. */
    public static final class Votes<T> {
        private final List<RedisNode> nodes;
        private final Object[] replies;
        private final NodeFailure[] failures;
        private final boolean[] answered;
        /** The live votes were handed over: later replies are ignored. Guarded by this. */
        private boolean settled;

        private Votes(List<RedisNode> nodes) {
            this(nodes, new Object[nodes.size()], new NodeFailure[nodes.size()], new boolean[nodes.size()]);
        }

        private Votes(List<RedisNode> nodes, Object[] replies, NodeFailure[] failures, boolean[] answered) {
            this.nodes = nodes;
            this.replies = replies;
            this.failures = failures;
            this.answered = answered;
        }

        private void record(int index, Object reply, NodeFailure failure) {
            answered[index] = true;
            replies[index] = failure == null ? reply : null;
            failures[index] = failure;
        }

        private Votes<T> copy() {
            return new Votes<>(nodes, replies.clone(), failures.clone(), answered.clone());
        }

        private boolean isSettled(Settle settle, Function<T, Vote> classify) {
            if (allAnswered()) {
                return true;
            }
            return switch (settle) {
                case AT_VERDICT -> verdict(classify) != Verdict.PENDING;
                case AT_WIN_OR_LOSS -> verdict(classify) == Verdict.WON || verdict(classify) == Verdict.LOST;
                case ALL_ANSWERED -> false;
            };
        }

        int size() {
            return nodes.size();
        }

        int quorum() {
            return nodes.size() / 2 + 1;
        }

        RedisNode node(int index) {
            return nodes.get(index);
        }

        /** The reply of a node that answered without failing, else null. */
        @SuppressWarnings("unchecked")
        T reply(int index) {
            return (T) replies[index];
        }

        boolean answered(int index) {
            return answered[index];
        }

        boolean allAnswered() {
            for (boolean done : answered) {
                if (!done) {
                    return false;
                }
            }
            return true;
        }

        /** Nodes that answered or may still answer: all but the failed. */
        int reachable() {
            return size() - failures().size();
        }

        List<NodeFailure> failures() {
            List<NodeFailure> failed = new ArrayList<>();
            for (NodeFailure failure : failures) {
                if (failure != null) {
                    failed.add(failure);
                }
            }
            return failed;
        }

        /** How many nodes replied with this vote. */
        int count(Function<T, Vote> classify, Vote vote) {
            int count = 0;
            for (int i = 0; i < size(); i++) {
                if (answered[i] && failures[i] == null && classify.apply(reply(i)) == vote) {
                    count++;
                }
            }
            return count;
        }

        /** The quorum rule; see {@link Quorum}. */
        Verdict verdict(Function<T, Vote> classify) {
            int yes = count(classify, Vote.YES);
            int no = count(classify, Vote.NO);
            int quorum = quorum();
            if (yes >= quorum) {
                return Verdict.WON;
            }
            if (no > size() - quorum) {
                return Verdict.LOST;
            }
            if (reachable() < quorum) {
                return Verdict.NO_QUORUM;
            }
            return size() - no - failures().size() < quorum ? Verdict.SPLIT : Verdict.PENDING;
        }

        /**
         * The operation failed: {@code message} followed by each failed node and how ("redis://...:
         * timed out after 50 ms; ..."), then {@code suffix}; each node's failure is a suppressed
         * exception and, as data, one of {@link LockBackendException#nodeErrors()}.
         *
         * @param lockName null for an operation on no single lock
         */
        LockBackendException failed(String lockName, String message, String suffix) {
            List<NodeError> errors = failures().stream().map(NodeFailure::toNodeError).toList();
            List<String> described = errors.stream().map(NodeError::toString).toList();
            LockBackendException failure = new LockBackendException(message + String.join("; ", described) + suffix,
                    null, lockName, errors);
            failures().forEach(failure::addSuppressed);
            return failure;
        }
    }
}
