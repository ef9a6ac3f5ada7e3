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

    private static HoldState copy(String owner, long token) {
        return new HoldState(owner, 1, token, "h", 1_000, true);
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

    @Test
    void holdsAreListedInTheOrderTheyReachedAQuorumThoughALateNodeGaveTheFirstTheLargestToken() {
        // "first" was granted by nodes 0-2 at 100-102 and returned; "second" by nodes 0-2 at 200-202; node 3,
        // slow, granted "first" only at 300, after "second" had been granted
        List<LockHolds> nodes = List.of(
                new LockHolds(3, List.of(copy("first", 100), copy("second", 200))),
                new LockHolds(3, List.of(copy("first", 101), copy("second", 201))),
                new LockHolds(3, List.of(copy("first", 102), copy("second", 202))),
                new LockHolds(3, List.of(copy("first", 300))),
                new LockHolds(3, List.of()));
        LockHolds view = LockHolds.heldByQuorum(nodes, 3);
        assertThat(view.holds()).extracting(HoldState::owner).containsExactly("first", "second");
        assertThat(view.holds()).extracting(HoldState::token).containsExactly(300L, 202L);
    }
}
