package dev.dlock.spring;

import dev.dlock.LockClientBuilder;

/**
 * A bean of this type gets the {@link LockClientBuilder} of the auto-configured
 * {@link dev.dlock.LockClient} after the {@code dlock.*} properties were applied and before
 * {@link LockClientBuilder#build()}: to add a {@link dev.dlock.LockListener}, the application's
 * Lettuce {@code ClientResources}, metrics, or an option the properties do not cover. Customizers
 * run in {@link org.springframework.core.annotation.Order @Order} / {@link org.springframework.core.Ordered}
 * order. An option set both by a property and by a customizer is refused by the builder
 * ({@link IllegalStateException}: options may be set once).
 */
@FunctionalInterface
public interface LockClientBuilderCustomizer {

    /**
     * Changes the builder.
     *
     * @param builder the builder, with the properties applied
     */
    void customize(LockClientBuilder builder);
}
