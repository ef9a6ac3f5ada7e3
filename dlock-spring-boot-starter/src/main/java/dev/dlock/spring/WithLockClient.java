package dev.dlock.spring;

import dev.dlock.LockClient;
import java.util.List;
import java.util.function.Supplier;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The {@link LockClient} that {@link WithLock @WithLock} locks with: the application's one (or
 * {@code @Primary}) {@code LockClient} bean, auto-configured or its own, looked up once it is
 * first needed. There is no fallback: without a client an annotated method fails, it never runs
 * unlocked.
 */
final class WithLockClient implements Supplier<LockClient> {
    private final ObjectProvider<LockClient> provider;
    private final ListableBeanFactory beans;
    private volatile LockClient client;

    WithLockClient(ObjectProvider<LockClient> provider, ListableBeanFactory beans) {
        this.provider = provider;
        this.beans = beans;
    }

    /**
     * The client.
     *
     * @throws NoLockClientException there is no {@code LockClient} bean, or several and none primary
     */
    @Override
    public LockClient get() {
        LockClient known = client;
        if (known == null) {
            known = lookUp(List.of());
            client = known;
        }
        return known;
    }

    /**
     * The client for a call of this annotated method.
     *
     * @throws NoLockClientException there is no {@code LockClient} bean, or several and none primary
     */
    LockClient forCall(String method) {
        LockClient known = client;
        if (known == null) {
            known = lookUp(List.of(method));
            client = known;
        }
        return known;
    }

    /**
     * The client for these annotated methods, named in the failure when there is none.
     *
     * @throws NoLockClientException there is no {@code LockClient} bean, or several and none primary
     */
    LockClient lookUp(List<String> annotated) {
        LockClient found;
        try {
            found = provider.getIfAvailable();
        } catch (NoUniqueBeanDefinitionException e) {
            throw new NoLockClientException(annotated, "the application has several LockClient beans ("
                    + String.join(", ", beans.getBeanNamesForType(LockClient.class)) + ") and none is @Primary",
                    "Mark the LockClient bean that @WithLock should lock with @Primary.");
        }
        if (found == null) {
            throw new NoLockClientException(annotated, "the application has no LockClient bean (dlock.enabled=false"
                    + " turns the auto-configured one off)",
                    "Remove dlock.enabled=false, so that the starter builds the client from dlock.* or"
                            + " spring.data.redis.*, or define a LockClient bean of your own.");
        }
        return found;
    }

    /** {@code @WithLock} cannot lock: there is no client to lock with. */
    static final class NoLockClientException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        /** What to do about it, for Spring Boot's failure report. */
        private final String action;

        NoLockClientException(List<String> annotated, String why, String action) {
            super((annotated.isEmpty() ? "@WithLock cannot lock: " : "@WithLock on " + names(annotated) + " cannot lock: ")
                    + why + ". " + action);
            this.action = action;
        }

        private static String names(List<String> annotated) {
            return annotated.size() <= 5 ? String.join(", ", annotated)
                    : String.join(", ", annotated.subList(0, 5)) + " and " + (annotated.size() - 5) + " more";
        }

        String action() {
            return action;
        }
    }
}
