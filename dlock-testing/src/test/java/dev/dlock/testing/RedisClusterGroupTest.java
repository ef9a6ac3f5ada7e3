package dev.dlock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterGroupTest {

    private static RedisClusterGroup cluster;

    @BeforeAll
    static void start() {
        cluster = RedisClusterGroup.start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    @Order(1)
    void threeMastersWithOneReplicaEachCoverAllSlots() {
        List<RedisServer> masters = cluster.masters();
        assertThat(masters).hasSize(3);
        for (RedisServer master : masters) {
            assertThat(cluster.replicasOf(master)).hasSize(1);
        }
        String info = (String) cluster.nodes().get(0).command("CLUSTER", "INFO");
        assertThat(info).contains("cluster_slots_assigned:16384", "cluster_slots_ok:16384", "cluster_state:ok");
    }

    @Test
    @Order(2)
    void aKeyLivesOnTheMasterOfItsSlotAndMovesWithIt() {
        RedisServer owner = cluster.masterOf("{user}:1");
        owner.command("SET", "{user}:1", "v");
        assertThat(owner.command("GET", "{user}:1")).isEqualTo("v");
        RedisServer other = cluster.masters().stream().filter(m -> m != owner).findFirst().orElseThrow();
        assertThatThrownBy(() -> other.command("GET", "{user}:1")).hasMessageStartingWith("MOVED " + cluster.slotOf("{user}:1"));

        cluster.moveSlot(cluster.slotOf("{user}:1"), other);

        assertThat(cluster.masterOf("{user}:1")).isSameAs(other);
        assertThat(other.command("GET", "{user}:1")).isEqualTo("v");
        assertThatThrownBy(() -> owner.command("GET", "{user}:1")).hasMessageStartingWith("MOVED");
    }

    @Test
    @Order(3)
    void killingAMasterPromotesItsReplica() {
        RedisServer master = cluster.masterOf("{order}:7");
        master.command("SET", "{order}:7", "kept");
        master.command("WAIT", "1", "5000");
        RedisServer replica = cluster.replicasOf(master).get(0);

        RedisServer promoted = cluster.killMasterAndAwaitPromotion(master, Duration.ofSeconds(30));

        assertThat(promoted).isSameAs(replica);
        assertThat(cluster.masterOf("{order}:7")).isSameAs(promoted);
        assertThat(promoted.command("GET", "{order}:7")).isEqualTo("kept");
    }
}
