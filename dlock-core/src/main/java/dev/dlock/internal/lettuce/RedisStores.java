package dev.dlock.internal.lettuce;

import dev.dlock.LockObserver;
import dev.dlock.internal.redis.ObservedNode;
import dev.dlock.internal.redis.QuorumStore;
import dev.dlock.internal.redis.RedisNode;
import dev.dlock.internal.redis.SingleNodeStore;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.store.LockStore;
import dev.dlock.internal.store.StoreContext;
import dev.dlock.internal.store.StoreFactory;
import io.lettuce.core.resource.ClientResources;
import java.util.ArrayList;
import java.util.List;

/**
 * The Redis backend: a Redlock quorum over the nodes when the settings say so, else the one
 * node's store (standalone, Sentinel's master or a Cluster). Each node's script calls are reported
 * to the client's observer.
 */
public final class RedisStores {

    private RedisStores() {
    }

    /**
     * Connects to the settings' Redis URLs when the client is built.
     *
     * @param shared the application's Lettuce resources, or null for dlock's own (shut down at close)
     */
    public static StoreFactory connecting(ClientResources shared) {
        return context -> {
            LettuceNodes connections = LettuceNodes.connect(context.settings(), shared);
            try {
                return on(connections.nodes(), connections::close).open(context);
            } catch (RuntimeException e) {
                connections.nodes().forEach(RedisNode::close);
                connections.close();
                throw e;
            }
        };
    }

    /** Over nodes connected already; the store closes them, then runs {@code afterClose}. */
    public static StoreFactory on(List<RedisNode> nodes, Runnable afterClose) {
        return context -> open(context, observed(nodes, context.observer()), afterClose);
    }

    private static LockStore open(StoreContext context, List<RedisNode> nodes, Runnable afterClose) {
        Settings settings = context.settings();
        return settings.redlock() ? new QuorumStore(nodes, settings, context.ticker(), afterClose)
                : new SingleNodeStore(nodes.get(0), settings, context.ticker(), settings.cluster(), afterClose);
    }

    private static List<RedisNode> observed(List<RedisNode> nodes, LockObserver observer) {
        if (observer == null) {
            return nodes;
        }
        List<RedisNode> observed = new ArrayList<>(nodes.size());
        for (RedisNode node : nodes) {
            observed.add(new ObservedNode(node, observer));
        }
        return observed;
    }
}
