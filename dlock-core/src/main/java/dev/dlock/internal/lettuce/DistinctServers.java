package dev.dlock.internal.lettuce;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The servers behind a Redlock's nodes, by what they are rather than by their URLs: two URLs may
 * name one server ({@code 127.0.0.1} and {@code localhost}, a DNS alias, a port forward), and a
 * quorum of votes that one server cast twice is no quorum. Each node tells its server's
 * {@code run_id} ({@code INFO server}, a random id a Redis process draws when it starts) when it
 * connects and after every reconnect; nodes whose servers share a run id are refused, each of them,
 * until that changes: their calls fail as an unreachable node's would, so their votes never count.
 */
public final class DistinctServers {

    private static final Logger LOG = LoggerFactory.getLogger(DistinctServers.class);

    /** What a node may be: identified (its server's run id), or refused (one server under two nodes). */
    public interface Member {
        String address();

        /** @param sameServerAs the other node's address and the shared run id; null when distinct */
        void sameServer(String sameServerAs);

        /**
         * The node's link dropped ({@code false}) or its server was identified again ({@code true}):
         * in between, its calls are refused, and a reply to a call sent before the drop is not
         * counted (the client library resends such calls after reconnecting, perhaps to another
         * server).
         */
        void serverKnown(boolean known);
    }

    /** Run ids by node, in the order the nodes were identified. */
    private final Map<Member, String> runIds = new LinkedHashMap<>();
    /** Whether the client was built: from then on a refusal is logged (before, building fails instead). */
    private boolean built;

    /** The client was built: nodes found to share a server from now on are logged. */
    public synchronized void built() {
        built = true;
    }

    /** Records the node's server and re-decides, for every node, whether it shares its server. */
    public synchronized void identified(Member node, String runId) {
        String before = runIds.put(node, runId);
        if (!runId.equals(before)) {
            decide();
        }
    }

    /** The node's server is not known (it disconnected): it stays refused until identified again. */
    public synchronized void forget(Member node) {
        if (runIds.remove(node) != null) {
            decide();
        }
    }

    /** "a and b are one server (run_id x)" for every pair of identified nodes with one server; empty when none. */
    public synchronized List<String> sharedServers() {
        List<String> shared = new ArrayList<>();
        List<Map.Entry<Member, String>> entries = new ArrayList<>(runIds.entrySet());
        for (int i = 0; i < entries.size(); i++) {
            for (int j = i + 1; j < entries.size(); j++) {
                if (entries.get(i).getValue().equals(entries.get(j).getValue())) {
                    shared.add(entries.get(i).getKey().address() + " and " + entries.get(j).getKey().address()
                            + " are one server (run_id " + entries.get(i).getValue() + ")");
                }
            }
        }
        return shared;
    }

    private void decide() {
        for (Map.Entry<Member, String> entry : runIds.entrySet()) {
            String other = null;
            for (Map.Entry<Member, String> candidate : runIds.entrySet()) {
                if (candidate.getKey() != entry.getKey() && candidate.getValue().equals(entry.getValue())) {
                    other = candidate.getKey().address() + " (run_id " + entry.getValue() + ")";
                    break;
                }
            }
            if (other != null && built) {
                LOG.error("Redlock node {} is the same server as {}: its vote is not counted until they differ",
                        entry.getKey().address(), other);
            }
            entry.getKey().sameServer(other);
        }
    }

    /** The run id in an {@code INFO server} reply, or null when it has none. */
    public static String runId(String info) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("run_id:")) {
                return line.substring("run_id:".length()).trim();
            }
        }
        return null;
    }
}
