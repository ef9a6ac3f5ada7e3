package dev.dlock.testing;

import java.util.ArrayList;
import java.util.List;

/** One line of {@code CLUSTER NODES}: id ip:port@bus flags master ping pong epoch link slot... */
final class ClusterNodeLine {
    final int port;
    final boolean master;
    final boolean failed;
    final String masterId;
    final List<int[]> slots = new ArrayList<>();

    private ClusterNodeLine(int port, boolean master, boolean failed, String masterId) {
        this.port = port;
        this.master = master;
        this.failed = failed;
        this.masterId = masterId;
    }

    static ClusterNodeLine parse(String line) {
        String[] f = line.split(" ");
        String address = f[1].substring(0, f[1].indexOf('@'));
        int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
        String flags = f[2];
        ClusterNodeLine node = new ClusterNodeLine(port, flags.contains("master"),
                flags.contains("fail") && !flags.contains("fail?"), f[3]);
        for (int i = 8; i < f.length; i++) {
            if (f[i].startsWith("[")) {
                continue; // a slot being imported or migrated
            }
            String[] range = f[i].split("-");
            int from = Integer.parseInt(range[0]);
            node.slots.add(new int[] {from, range.length > 1 ? Integer.parseInt(range[1]) : from});
        }
        return node;
    }

    boolean serves(int slot) {
        return slots.stream().anyMatch(r -> r[0] <= slot && slot <= r[1]);
    }
}
