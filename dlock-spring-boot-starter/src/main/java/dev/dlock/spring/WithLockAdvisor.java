package dev.dlock.spring;

import java.lang.reflect.Method;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.Ordered;

/**
 * Applies the {@link WithLock} advice to the methods that carry the annotation. Its order
 * ({@code dlock.advice-order}, default {@link #DEFAULT_ORDER}) places the lock around the
 * advice of lower precedence on the same method, {@code @Transactional} included.
 */
public final class WithLockAdvisor extends AbstractPointcutAdvisor {
    private static final long serialVersionUID = 1L;

    /**
     * {@code Ordered.LOWEST_PRECEDENCE - 1000}: before (outside) {@code @Transactional} and
     * {@code @Cacheable}, whose advisors default to {@link Ordered#LOWEST_PRECEDENCE}, and after
     * (inside) advice of higher precedence such as method security, so a caller that is refused
     * never takes the lock.
     */
    public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

    private final transient Advice advice;
    private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return LockedMethods.find(method, targetClass) != null;
        }
    };

    WithLockAdvisor(Advice advice, int order) {
        this.advice = advice;
        setOrder(order);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return advice;
    }
}
