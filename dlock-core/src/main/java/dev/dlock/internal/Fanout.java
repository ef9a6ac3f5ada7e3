package dev.dlock.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One call sent to every node at once, each bounded by the per-node timeout. The result is decided
 * as soon as the replies so far allow it (a quorum granted, or a quorum can no longer be had), so
 * a slow or paused node does not slow a decision the others already make.
 */
final class Fanout<T> {

    private final List<RedisNode> nodes;
    private final Object[] replies;
    private final Throwable[] errors;
    private final boolean[] answered;
    private int answeredCount;
    private boolean decided;

    private Fanout(List<RedisNode> nodes) {
        this.nodes = nodes;
        this.replies = new Object[nodes.size()];
        this.errors = new Throwable[nodes.size()];
        this.answered = new boolean[nodes.size()];
    }

    /**
     * @param call    the call on one node
     * @param decide  given the replies so far, the result, or empty to wait for more; it must
     *                decide once every node has answered
     */
    static <T, R> CompletableFuture<R> call(List<RedisNode> nodes, long timeoutMs,
                                            Function<RedisNode, CompletableFuture<T>> call,
                                            Function<Fanout<T>, Optional<R>> decide) {
        Fanout<T> fanout = new Fanout<>(nodes);
        CompletableFuture<R> result = new CompletableFuture<>();
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
            sent.get(i).whenComplete((value, error) -> {
                Optional<R> decision;
                synchronized (fanout) {
                    fanout.record(index, value, error);
                    if (fanout.decided) {
                        return;
                    }
                    try {
                        decision = decide.apply(fanout);
                    } catch (RuntimeException e) {
                        fanout.decided = true;
                        result.completeExceptionally(e);
                        return;
                    }
                    // decided exactly once: a decision's side effects (releases) must not be repeated
                    // after the caller has moved on to its next attempt
                    fanout.decided = decision.isPresent();
                }
                decision.ifPresent(result::complete);
            });
        }
        return result;
    }

    private void record(int index, Object value, Throwable error) {
        answered[index] = true;
        answeredCount++;
        if (error != null) {
            errors[index] = Failures.unwrap(error);
        } else {
            replies[index] = value;
        }
    }

    int size() {
        return nodes.size();
    }

    boolean allAnswered() {
        return answeredCount == nodes.size();
    }

    boolean answered(int index) {
        return answered[index];
    }

    /** The reply of a node that answered without error, else null. */
    @SuppressWarnings("unchecked")
    T reply(int index) {
        return (T) replies[index];
    }

    Throwable error(int index) {
        return errors[index];
    }

    int errorCount() {
        int count = 0;
        for (Throwable error : errors) {
            if (error != null) {
                count++;
            }
        }
        return count;
    }

    RedisNode node(int index) {
        return nodes.get(index);
    }

    /** Each failed node and how, e.g. "redis://127.0.0.1:7001: timed out after 50 ms". */
    List<String> failures(long timeoutMs) {
        List<String> described = new ArrayList<>();
        for (int i = 0; i < errors.length; i++) {
            if (errors[i] != null) {
                described.add(nodes.get(i).address() + ": " + Failures.nodeFailure(nodes.get(i), errors[i], timeoutMs));
            }
        }
        return described;
    }
}
