package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.testing.RedisServer;
import dev.dlock.testing.RedisServers;
import dev.dlock.testing.ServerKind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The ACL rule of docs/deployments.md, read from there and given to a user of a real server: every
 * lock kind works with it; with one of its permissions taken away, the error names the refusal
 * (NOPERM) and the call is not retried as if Redis were down.
 */
class LeastPrivilegeTest {

    private static final String PASSWORD = "s3cret-for-tests";

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    @RegisterExtension
    final OpenResources resources = new OpenResources();

    /** The rule as the docs print it, as ACL SETUSER arguments, with this test's password. */
    static List<String> documentedRule() {
        Path docs = Path.of("..", "docs", "deployments.md");
        try {
            String line = Files.readAllLines(docs).stream().map(String::trim)
                    .filter(text -> text.startsWith("ACL SETUSER dlock ")).findFirst()
                    .orElseThrow(() -> new AssertionError("no ACL SETUSER line in " + docs));
            List<String> args = new ArrayList<>(Arrays.asList(line.split("\\s+")));
            args.replaceAll(arg -> arg.equals(">CHANGE-ME") ? ">" + PASSWORD : arg);
            return args;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void setUser(RedisServer server, String... changes) {
        List<String> args = new ArrayList<>(documentedRule());
        args.addAll(List.of(changes));
        assertThat(server.command(args.toArray(String[]::new))).isEqualTo("OK");
    }

    private LockClient client() {
        RedisServer server = redis.server();
        return resources.track(LockClient.builder()
                .store(RedisStore.standalone("redis://dlock:" + PASSWORD + "@" + server.host() + ":" + server.port())).build());
    }

    @BeforeEach
    void documentedUser() {
        redis.server().command("ACL", "DELUSER", "dlock");
        setUser(redis.server());
    }

    @Test
    void everyLockKindWorksWithTheDocumentedRule() {
        LockClient client = client();
        LockClient other = client();

        DistributedLock lock = client.getLock("acl-reentrant");
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.info().holdCount()).isEqualTo(2);
        // a waiter of another client is woken by the release message (SUBSCRIBE, PUBLISH)
        CompletableFuture<Optional<LockHandle>> waiter = other.getLock("acl-reentrant").tryAcquireAsync(Duration.ofSeconds(20));
        lock.unlock();
        lock.unlock();
        waiter.orTimeout(20, TimeUnit.SECONDS).join().orElseThrow().release();

        DistributedLock fair = client.getFairLock("acl-fair");
        assertThat(fair.tryLock()).isTrue();
        CompletableFuture<Optional<LockHandle>> fairWaiter = other.getFairLock("acl-fair").tryAcquireAsync(Duration.ofSeconds(20));
        fair.unlock();
        fairWaiter.orTimeout(20, TimeUnit.SECONDS).join().orElseThrow().release();

        DistributedReadWriteLock readWrite = client.getReadWriteLock("acl-rw");
        assertThat(readWrite.readLock().tryLock()).isTrue();
        assertThat(other.getReadWriteLock("acl-rw").writeLock().tryLock()).isFalse();
        readWrite.readLock().unlock();
        assertThat(readWrite.writeLock().tryLock()).isTrue();
        readWrite.writeLock().unlock();

        DistributedSemaphore semaphore = client.getSemaphore("acl-semaphore", 2);
        LockHandle permit = semaphore.tryAcquire().orElseThrow();
        assertThat(semaphore.availablePermits()).isEqualTo(1);
        permit.release();

        DistributedLock multi = client.getMultiLock("acl-a", "acl-b");
        assertThat(multi.tryLock()).isTrue();
        assertThat(client.listLocks("acl-*")).hasSize(2);
        multi.unlock();

        DistributedLock forced = client.getLock("acl-forced");
        assertThat(forced.tryLock()).isTrue();
        assertThat(other.getLock("acl-forced").forceUnlock()).isTrue();
        assertThat(forced.isLocked()).isFalse();
    }

    @Test
    void aPermissionTakenAwayIsNamedAndNotRetriedAsAnOutage() {
        setUser(redis.server(), "-hset");
        LockClient client = client();
        long before = CommandStats.scriptCalls(redis.server());
        // tryLock() makes one attempt by definition: its script calls are what one attempt costs
        assertThatThrownBy(() -> client.getLock("acl-once").tryLock())
                .isInstanceOf(LockBackendException.class).hasMessageContaining("NOPERM");
        long oneAttempt = CommandStats.scriptCalls(redis.server()) - before;

        before = CommandStats.scriptCalls(redis.server());
        // lock() rides through outages for the outage tolerance (30 s): a refusal must end it at once
        assertThatThrownBy(() -> client.getLock("acl-refused").lock())
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("NOPERM the client's ACL user may not run HSET")
                // Redis 7.0 names only the script's line, which dlock reads the command from; Valkey 8 names it
                .hasMessageContaining(ServerKind.current() == ServerKind.VALKEY
                        ? "ERR ACL failure in script: User dlock has no permissions to run the 'hset' command"
                        : "ERR The user executing the script can't run this command or subcommand")
                .hasMessageNotContaining("outage tolerance");
        // retried, it would make tens of attempts (10 ms doubling up to 1 s) before giving up
        assertThat(CommandStats.scriptCalls(redis.server()) - before).as("script calls of the refused lock()")
                .isPositive().isLessThanOrEqualTo(oneAttempt);
    }

    @Test
    void aKeyOutsideThePrefixIsRefusedByName() {
        RedisServer server = redis.server();
        LockClient client = resources.track(LockClient.builder().keyPrefix("other:")
                .store(RedisStore.standalone("redis://dlock:" + PASSWORD + "@" + server.host() + ":" + server.port())).build());
        assertThatThrownBy(() -> client.getLock("outside").tryLock(5, TimeUnit.SECONDS))
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("NOPERM");
    }

    @Test
    void evalshaTakenAwayFailsTheBuildNamingIt() {
        setUser(redis.server(), "-evalsha");
        assertThatThrownBy(this::client)
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("refuses EVALSHA")
                .hasMessageContaining("NOPERM");
    }
}
