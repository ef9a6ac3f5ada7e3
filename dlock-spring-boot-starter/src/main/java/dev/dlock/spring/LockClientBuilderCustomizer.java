package dev.dlock.spring;

import dev.dlock.LockClientBuilder;

/**
 * A bean of this type gets the {@link LockClientBuilder} of the auto-configured
 * {@link dev.dlock.LockClient} before {@link LockClientBuilder#build()}: to add a
 * {@link dev.dlock.LockListener}, the application's Lettuce {@code ClientResources}, a callback
 * executor, or an option the properties do not cover. Customizers run in
 * {@link org.springframework.core.annotation.Order @Order} / {@link org.springframework.core.Ordered}
 * order, before the {@code dlock.*} properties are applied: an option a customizer sets wins over its
 * property, which is passed over.
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
