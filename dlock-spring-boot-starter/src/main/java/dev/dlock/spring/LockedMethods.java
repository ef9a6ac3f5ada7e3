package dev.dlock.spring;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * The annotated methods seen so far, each parsed once, and the evaluation of their keys. Shared by
 * the startup check and the advice, so a method checked at startup is not parsed again.
 */
final class LockedMethods {
    private final Map<Method, LockedMethod> methods = new ConcurrentHashMap<>();
    private final SpelExpressionParser parser = new SpelExpressionParser();
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
    private final Environment environment;
    private final BeanFactory beanFactory;

    LockedMethods(Environment environment, BeanFactory beanFactory) {
        this.environment = environment;
        this.beanFactory = beanFactory;
    }

    /** The annotation of the method as called on this target class, or null when it has none. */
    static WithLock find(Method method, Class<?> targetClass) {
        Method specific = BridgeMethodResolver.findBridgedMethod(AopUtils.getMostSpecificMethod(method, targetClass));
        WithLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, WithLock.class);
        return annotation != null || specific.equals(method) ? annotation
                : AnnotatedElementUtils.findMergedAnnotation(method, WithLock.class);
    }

    /**
     * The parsed annotation of the method as called on this target class.
     *
     * @throws IllegalStateException the annotation is invalid (message names method and attribute)
     */
    LockedMethod get(Method method, Class<?> targetClass) {
        Method specific = BridgeMethodResolver.findBridgedMethod(AopUtils.getMostSpecificMethod(method, targetClass));
        return methods.computeIfAbsent(specific, m -> {
            WithLock annotation = find(method, targetClass);
            if (annotation == null) {
                throw new IllegalStateException("no @WithLock on " + LockedMethod.describe(m));
            }
            return LockedMethod.parse(m, annotation, parser, environment);
        });
    }

    /**
     * The lock name for one call.
     *
     * @throws IllegalArgumentException the expression failed or gave null or a blank name
     */
    String lockName(LockedMethod locked, Object target, Object[] args) {
        if (locked.keyExpression() == null) {
            return locked.defaultName();
        }
        Object value;
        try {
            MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
                    new KeyRoot(locked.method(), args, target), locked.method(), args, parameterNames);
            context.setBeanResolver(new BeanFactoryResolver(beanFactory));
            value = locked.keyExpression().getValue(context);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("@WithLock on " + LockedMethod.describe(locked.method())
                    + ": key expression \"" + locked.source() + "\" failed: " + e.getMessage(), e);
        }
        if (value == null || value.toString().isBlank()) {
            throw new IllegalArgumentException("@WithLock on " + LockedMethod.describe(locked.method())
                    + ": key expression \"" + locked.source() + "\" gave " + (value == null ? "null" : "a blank name")
                    + ", not a lock name");
        }
        return value.toString();
    }

    /**
     * The root object of key expressions ({@code #root.method}, {@code #root.args},
     * {@code #root.target}).
     *
     * @param method the annotated method
     * @param args   the call's arguments
     * @param target the bean called
     */
    record KeyRoot(Method method, Object[] args, Object target) {
    }
}
