package dev.dlock.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.internal.store.LockHolds.HoldState;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Redlock's view of a semaphore from its nodes' holds. */
class LockHoldsTest {

    private static LockHolds node(int permits, String... owners) {
        return new LockHolds(permits, Arrays.stream(owners).map(owner -> new HoldState(owner, 1, 7, "h", 1_000, true)).toList());
    }

    @Test
    void thePermitCountIsThatOfTheNodesThatCarryTheQuorumsHoldsNotOfAStrayPermit() {
        // "three" holds a permit of a 3-permit semaphore on 3 of 5 nodes; a refused acquire with 5 permits
        // took one on a node that "three" missed and has not given it back yet
        List<LockHolds> nodes = Arrays.asList(node(3, "three"), node(3, "three"), node(3, "three"), node(5, "five"), null);
        LockHolds view = LockHolds.heldByQuorum(nodes, 3);
        assertThat(view.holds()).extracting(HoldState::owner).containsExactly("three");
        assertThat(view.permits()).isEqualTo(3);
    }

    @Test
    void noHoldOnAQuorumIsNoPermitCount() {
        List<LockHolds> nodes = List.of(node(3, "a"), node(3, "b"), node(5, "c"));
        LockHolds view = LockHolds.heldByQuorum(nodes, 2);
        assertThat(view.holds()).isEmpty();
        assertThat(view.permits()).isZero();
    }
}
