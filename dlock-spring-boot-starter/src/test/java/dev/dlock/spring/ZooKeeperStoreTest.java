package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.testing.ZooKeeperEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** dlock.store=zookeeper: the locks in the ensemble of dlock.zookeeper.connect-string. */
class ZooKeeperStoreTest {

    @RegisterExtension
    static final ZooKeeperEnsemble zookeeper = ZooKeeperEnsemble.of(1);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DlockAutoConfiguration.class));

    @Test
    void theLocksLiveInTheEnsembleOfTheConnectString() {
        runner.withPropertyValues("dlock.store=zookeeper", "dlock.zookeeper.connect-string=" + zookeeper.connectString())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockClient client = context.getBean(LockClient.class);
                    DistributedLock lock = client.getLock("invoice:7");
                    lock.lock();
                    try {
                        assertThat(client.listLocks("invoice*")).singleElement()
                                .satisfies(listed -> assertThat(listed.holds()).hasSize(1));
                    } finally {
                        lock.unlock();
                    }
                });
    }

    @Test
    void withoutAConnectStringTheStartupFailsSayingWhatIsMissing() {
        runner.withPropertyValues("dlock.store=zookeeper").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("dlock.zookeeper.connect-string"));
    }

    @Test
    void aMissingChrootFailsTheStartupNamingIt() {
        runner.withPropertyValues("dlock.store=zookeeper",
                "dlock.zookeeper.connect-string=" + zookeeper.connectString("/absent")).run(context ->
                assertThat(context).hasFailed().getFailure().hasStackTraceContaining("the chroot '/absent' does not exist"));
    }
}
