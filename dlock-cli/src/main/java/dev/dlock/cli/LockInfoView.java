package dev.dlock.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dlock.LockHolder;
import dev.dlock.LockInfo;
import java.util.LinkedHashMap;
import java.util.Map;

/** How {@code status} and {@code list} show a {@link LockInfo}, to people and to scripts. */
final class LockInfoView {

    private LockInfoView() {
    }

    /** Made on first use, so that text output does not load Jackson (a short command is mostly JVM start-up). */
    private static final class Json {
        static final ObjectMapper MAPPER = new ObjectMapper();
    }

    /** One line of JSON for what {@link #json(LockInfo)} built (or a list of them). */
    static String toJson(Object value) {
        try {
            return Json.MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + value + " as JSON", e);
        }
    }

    /** The JSON object documented in docs/cli.md; a free lock has null holder and token. */
    static Map<String, Object> json(LockInfo info) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("name", info.name());
        json.put("key", info.key());
        json.put("locked", info.isLocked());
        json.put("holder", info.holder().map(LockInfoView::holderJson).orElse(null));
        json.put("holdCount", info.holdCount());
        json.put("remainingLeaseMs", info.remainingLease().toMillis());
        json.put("fencingToken", info.isLocked() ? info.fencingToken() : null);
        json.put("waitingClients", info.waitingClients());
        return json;
    }

    private static Map<String, Object> holderJson(LockHolder holder) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("client", holder.clientName());
        json.put("host", holder.host());
        json.put("pid", holder.pid());
        json.put("thread", holder.thread());
        return json;
    }

    /** {@code client on host, pid N, thread T}. */
    static String holder(LockHolder holder) {
        return holder.clientName() + " on " + holder.host() + ", pid " + holder.pid() + ", thread " + holder.thread();
    }

    /** Several lines for {@code dlock status}. */
    static String text(LockInfo info) {
        StringBuilder out = new StringBuilder();
        out.append("lock '").append(info.name()).append("': ").append(info.isLocked() ? "held" : "free").append('\n');
        info.holder().ifPresent(holder -> {
            row(out, "holder", holder(holder));
            row(out, "hold count", Integer.toString(info.holdCount()));
            row(out, "lease left", Durations.format(info.remainingLease()));
            row(out, "fencing token", Long.toString(info.fencingToken()));
        });
        row(out, "waiting", info.waitingClients() + (info.waitingClients() == 1 ? " client" : " clients"));
        row(out, "key", info.key());
        return out.toString();
    }

    private static void row(StringBuilder out, String label, String value) {
        out.append(String.format("  %-14s %s%n", label, value));
    }
}
