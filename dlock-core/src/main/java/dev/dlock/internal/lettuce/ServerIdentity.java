package dev.dlock.internal.lettuce;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Redlock node's server, told apart by its run id ({@code INFO server}) at every connect and
 * after every reconnect, and filed with the Redlock's other servers ({@link DistinctServers}). From
 * a drop of the link until the server behind the new link is identified, the node is refused. A
 * server that refuses INFO (an ACL without it) cannot be told apart from the others but by its
 * address: that is logged, and the address stands for the server.
 */
final class ServerIdentity {

    private static final Logger LOG = LoggerFactory.getLogger(ServerIdentity.class);

    private final String address;
    private final long commandTimeoutMs;
    private final DistinctServers servers;
    private final DistinctServers.Member node;

    ServerIdentity(String address, long commandTimeoutMs, DistinctServers servers, DistinctServers.Member node) {
        this.address = address;
        this.commandTimeoutMs = commandTimeoutMs;
        this.servers = servers;
        this.node = node;
    }

    /**
     * A fresh command link: identifies its server before the first call is let through (waiting at
     * most the command timeout), and again after every reconnect of the link.
     *
     * @throws RedisException the server did not answer in time
     */
    void identifyAtConnect(StatefulRedisConnection<String, String> commandLink) {
        try {
            identify(commandLink.async()).get(commandTimeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisException("interrupted while identifying the server", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new RedisException("INFO server did not answer: " + LettuceErrors.unwrap(e).getMessage(), e);
        }
        commandLink.addListener(new RedisConnectionStateListener() {
            @Override
            public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
                node.serverKnown(false);
                servers.forget(node);
            }

            @Override
            public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress socketAddress) {
                identify(commandLink.async());
            }
        });
    }

    private CompletableFuture<Void> identify(RedisAsyncCommands<String, String> link) {
        return link.info("server").toCompletableFuture().handle((info, error) -> {
            String runId = error == null ? DistinctServers.runId(info) : null;
            if (runId == null) {
                LOG.warn("Redlock node {}: INFO server {}; distinct servers are told apart by their addresses only",
                        address, error == null ? "has no run_id" : "failed: " + LettuceErrors.unwrap(error).getMessage());
                runId = "address " + address;
            }
            servers.identified(node, runId);
            node.serverKnown(true);
            return null;
        });
    }
}
