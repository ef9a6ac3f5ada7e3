package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link LockInfo#kind()}: what the store tells of the kind held, through a lock's info and a listing. */
class LockInfoKindTest {

    private LockClient client;

    @BeforeEach
    void connect() {
        client = LockClient.builder().store(Store.inMemory()).keyPrefix("kind-test:").build();
    }

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void aLocksInfoNamesItsKindAndAListingNamesTheSharedKinds() throws Exception {
        DistributedLock plain = client.getLock("plain");
        DistributedLock fair = client.getFairLock("fair");
        DistributedReadWriteLock readWrite = client.getReadWriteLock("rw");
        DistributedReadWriteLock readers = client.getReadWriteLock("readers");
        DistributedSemaphore semaphore = client.getSemaphore("sem", 2);
        assertThat(plain.info().kind()).isEmpty();
        plain.lock();
        fair.lock();
        readWrite.writeLock().lock();
        readers.readLock().lock();
        try (LockHandle permit = semaphore.acquire()) {
            assertThat(plain.info().kind()).contains(LockKind.REENTRANT);
            assertThat(fair.info().kind()).contains(LockKind.FAIR);
            assertThat(readWrite.writeLock().info().kind()).contains(LockKind.WRITE);
            assertThat(readers.readLock().info().kind()).contains(LockKind.READ);
            assertThat(semaphore.info().kind()).contains(LockKind.PERMIT);
            assertThat(client.listLocks("*")).extracting(LockInfo::name, LockInfo::kind).containsExactly(
                    org.assertj.core.groups.Tuple.tuple("fair", Optional.empty()),
                    org.assertj.core.groups.Tuple.tuple("plain", Optional.empty()),
                    org.assertj.core.groups.Tuple.tuple("readers", Optional.of(LockKind.READ)),
                    org.assertj.core.groups.Tuple.tuple("rw", Optional.empty()),
                    org.assertj.core.groups.Tuple.tuple("sem", Optional.of(LockKind.PERMIT)));
        } finally {
            plain.unlock();
            fair.unlock();
            readWrite.writeLock().unlock();
            readers.readLock().unlock();
        }
    }

    @Test
    void aMultiLocksInfoIsOfReentrantLocksUnderItsLabel() {
        DistributedLock multi = client.getMultiLock("b", "a");
        multi.lock();
        try {
            LockInfo info = multi.info();
            assertThat(info.name()).isEqualTo("multi-lock[a, b]");
            assertThat(info.kind()).contains(LockKind.REENTRANT);
            assertThat(info.holds()).hasSize(2);
        } finally {
            multi.unlock();
        }
    }

    @Test
    void snapshotsAreValuesMadeByFactories() {
        LockHolder holder = new LockHolder("app", "host", 1, "main");
        HoldInfo hold = HoldInfo.of(holder, 1, Duration.ofSeconds(3), 7, false);
        LockInfo info = LockInfo.of("n", "dlock:{n}", Optional.of(LockKind.REENTRANT), Optional.of(holder), 1,
                Duration.ofSeconds(3), 7, 0, Duration.ofSeconds(1), List.of(hold), 0);
        assertThat(info).isEqualTo(LockInfo.of("n", "dlock:{n}", Optional.of(LockKind.REENTRANT), Optional.of(holder), 1,
                Duration.ofSeconds(3), 7, 0, Duration.ofSeconds(1), List.of(HoldInfo.of(holder, 1, Duration.ofSeconds(3), 7, false)), 0));
        assertThat(info.isLocked()).isTrue();
        assertThat(LockInfo.free("n", "dlock:{n}", 2)).extracting(LockInfo::isLocked, LockInfo::waitingClients, LockInfo::kind)
                .containsExactly(false, 2L, Optional.empty());
        assertThat(info.toString()).contains("kind=REENTRANT");
    }
}
