package dev.dlock.spring;

/**
 * The starter refuses to start: what is wrong, naming the bean, method, property or value, and
 * what to do about it, which {@link DlockFailureAnalyzer} puts in Spring Boot's "APPLICATION
 * FAILED TO START" report as its Description and Action. It is an {@link IllegalStateException},
 * with both in its message, for a bean created after the startup (whose first call fails instead).
 */
final class StartupRefusal extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** What is wrong. */
    private final String description;
    /** What to do about it. */
    private final String action;

    StartupRefusal(String description, String action) {
        this(description, action, null);
    }

    StartupRefusal(String description, String action, Throwable cause) {
        super(description + "; " + action, cause);
        this.description = description;
        this.action = action;
    }

    String description() {
        return description;
    }

    String action() {
        return action;
    }
}
