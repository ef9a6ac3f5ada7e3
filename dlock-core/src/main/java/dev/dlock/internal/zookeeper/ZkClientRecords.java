package dev.dlock.internal.zookeeper;

import dev.dlock.LockHolder;
import dev.dlock.internal.store.ClientRecordEntry;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;

/**
 * Client records as ephemeral nodes {@code /dlock/clients/<clientId>}: who a client is (name, host,
 * pid, its threads' names), so that an inspection can name a holder. The node goes with the
 * client's session, so it never outlives the holds it names. Data: {@code name \n host \n pid}, then
 * a line {@code threadId \t threadName} per thread. Best effort: a failure is never a lock's failure.
 */
final class ZkClientRecords {

    private final ZkSession session;
    /** What this client wrote of itself, so that an added thread rewrites the whole record. */
    private final Map<String, String> threads = new LinkedHashMap<>();

    ZkClientRecords(ZkSession session) {
        this.session = session;
    }

    CompletableFuture<Void> write(ClientRecordEntry entry) {
        byte[] data;
        synchronized (threads) {
            if (entry.replace()) {
                threads.clear();
            }
            for (int i = 0; i + 1 < entry.threads().size(); i += 2) {
                threads.put(entry.threads().get(i), entry.threads().get(i + 1));
            }
            StringBuilder text = new StringBuilder();
            text.append(oneLine(entry.clientName())).append('\n').append(oneLine(entry.host())).append('\n').append(entry.pid());
            threads.forEach((id, name) -> text.append('\n').append(oneLine(id)).append('\t').append(oneLine(name)));
            data = text.toString().getBytes(StandardCharsets.UTF_8);
        }
        String path = ZkNodes.CLIENTS + "/" + ZkNodes.encode(entry.clientId());
        return session.setData(path, data).thenCompose(stat -> stat != null ? CompletableFuture.<Void>completedFuture(null)
                : session.create(path, data, CreateMode.EPHEMERAL).thenApply(created -> (Void) null))
                .exceptionally(error -> null);
    }

    CompletableFuture<Void> drop(String clientId) {
        return session.delete(ZkNodes.CLIENTS + "/" + ZkNodes.encode(clientId), -1)
                .handle((deleted, error) -> null);
    }

    CompletableFuture<Optional<LockHolder>> read(String clientId, String threadId) {
        return session.getData(ZkNodes.CLIENTS + "/" + ZkNodes.encode(clientId)).thenApply(found -> {
            if (found == null) {
                return Optional.<LockHolder>empty();
            }
            String[] lines = new String(found.bytes(), StandardCharsets.UTF_8).split("\n");
            if (lines.length < 3) {
                return Optional.<LockHolder>empty();
            }
            String thread = threadId;
            for (int i = 3; i < lines.length; i++) {
                int tab = lines[i].indexOf('\t');
                if (tab > 0 && lines[i].substring(0, tab).equals(threadId)) {
                    thread = lines[i].substring(tab + 1);
                }
            }
            long pid;
            try {
                pid = Long.parseLong(lines[2]);
            } catch (NumberFormatException e) {
                pid = 0;
            }
            return Optional.of(new LockHolder(lines[0], lines[1], pid, thread));
        }).exceptionally(error -> Optional.empty());
    }

    private static String oneLine(String text) {
        return text == null ? "" : text.replace('\n', ' ').replace('\t', ' ');
    }
}
