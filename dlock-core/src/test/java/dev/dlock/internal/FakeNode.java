package dev.dlock.internal;

import dev.dlock.NodeError;
import dev.dlock.internal.redis.LuaScript;
import dev.dlock.internal.redis.RedisNode;
import dev.dlock.internal.store.NodeFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * An in-memory {@link RedisNode} for unit tests of the quorum decisions and the acquire loop: it
 * runs no script, but answers each script with what the test programmed (a grant, a refusal, a
 * delay, a timeout, a failure), records every call, and publishes messages to its subscribers.
 * Unprogrammed scripts answer 0 (integer scripts) or an empty array.
 */
final class FakeNode implements RedisNode {

    /** How a node answers one call of a script. */
    interface Answer {
        CompletableFuture<Object> answer(FakeNode node, String[] keys, String[] args);
    }

    /** One script call as the node received it. */
    record Call(LuaScript script, List<String> keys, List<String> args) {
    }

    private final String address;
    private final Map<LuaScript, List<Answer>> answers = new ConcurrentHashMap<>();
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final Set<String> subscriptions = ConcurrentHashMap.newKeySet();
    private volatile Listener listener;
    private volatile boolean connected = true;
    private volatile Answer waitAnswer = reply(0L);
    private final List<List<String>> waits = new CopyOnWriteArrayList<>();

    FakeNode(String address) {
        this.address = address;
    }

    /** Answers the script's next calls in turn; the last answer is kept for every later call. */
    FakeNode on(LuaScript script, Answer... inTurn) {
        answers.put(script, new CopyOnWriteArrayList<>(List.of(inTurn)));
        return this;
    }

    /** acquire.lua's grant: {1, token, holdCount}. */
    static Answer granted(long token) {
        return reply(List.of(1L, Long.toString(token), 1L));
    }

    /** acquire.lua's refusal: {0, retryAfterMs}. */
    static Answer busy(long retryAfterMs) {
        return reply(List.of(0L, retryAfterMs));
    }

    static Answer reply(Object value) {
        return (node, keys, args) -> CompletableFuture.completedFuture(value);
    }

    /** Never answers: the caller's own timeout ends the wait. */
    static Answer silent() {
        return (node, keys, args) -> new CompletableFuture<>();
    }

    static Answer failing(NodeError.Cause kind, String detail) {
        return (node, keys, args) -> CompletableFuture.failedFuture(new NodeFailure(kind, node.address(), detail, null));
    }

    static Answer errorReply(String reply) {
        return failing(NodeError.Cause.ERROR_REPLY, reply);
    }

    static Answer unreachable() {
        return failing(NodeError.Cause.UNREACHABLE, "Connection refused");
    }

    /** The answer, given after a delay. */
    static Answer delayed(long delayMs, Answer answer) {
        return (node, keys, args) -> CompletableFuture.supplyAsync(() -> null,
                        CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS))
                .thenCompose(ignored -> answer.answer(node, keys, args));
    }

    /** How WAIT answers (by default: 0 replicas acknowledged at once). */
    FakeNode onWait(Answer answer) {
        this.waitAnswer = answer;
        return this;
    }

    /** Every WAIT as the node received it: key, replicas, timeout in ms. */
    List<List<String>> waits() {
        return List.copyOf(waits);
    }

    List<Call> calls() {
        return List.copyOf(calls);
    }

    List<Call> calls(LuaScript script) {
        return calls.stream().filter(call -> call.script() == script).toList();
    }

    Set<String> subscriptions() {
        return Set.copyOf(subscriptions);
    }

    /** Delivers a message to this node's listener if the channel is subscribed; true if it was. */
    boolean publish(String channel, String message) {
        Listener current = listener;
        if (current == null || !subscriptions.contains(channel)) {
            return false;
        }
        current.onMessage(channel, message);
        return true;
    }

    void setConnected(boolean connected) {
        this.connected = connected;
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, String[] keys, String... args) {
        calls.add(new Call(script, List.of(keys), List.of(args)));
        List<Answer> inTurn = answers.get(script);
        if (inTurn == null || inTurn.isEmpty()) {
            Object none = script.output() == LuaScript.Output.INTEGER ? (Object) 0L : new ArrayList<>();
            return CompletableFuture.completedFuture(none);
        }
        Answer next = inTurn.size() > 1 ? inTurn.remove(0) : inTurn.get(0);
        return next.answer(this, keys, args);
    }

    @Override
    public CompletableFuture<Long> waitForReplicas(String key, int replicas, java.time.Duration timeout) {
        waits.add(List.of(key, Integer.toString(replicas), Long.toString(timeout.toMillis())));
        return waitAnswer.answer(this, new String[] {key}, new String[0]).thenApply(count -> (Long) count);
    }

    @Override
    public CompletableFuture<List<String>> scan(String pattern) {
        return CompletableFuture.completedFuture(List.of());
    }

    @Override
    public CompletableFuture<Long> subscriberCount(String channel) {
        return CompletableFuture.completedFuture(subscriptions.contains(channel) ? 1L : 0L);
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        subscriptions.add(channel);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> unsubscribe(String channel) {
        subscriptions.remove(channel);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void setListener(Listener listener) {
        this.listener = listener;
    }

    @Override
    public boolean isConnected() {
        return connected;
    }

    @Override
    public void close() {
    }
}
