package dev.dlock.spring;

import java.lang.reflect.Method;
import java.util.Map;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Parses every {@link WithLock} of a bean when the bean is created, so that a malformed key
 * expression, duration or return type fails the startup, naming the bean, the method and the
 * value, instead of the first call.
 */
final class WithLockMethodCheck implements BeanPostProcessor {
    private final LockedMethods methods;

    WithLockMethodCheck(LockedMethods methods) {
        this.methods = methods;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> targetClass = AopUtils.getTargetClass(bean);
        if (!AnnotationUtils.isCandidateClass(targetClass, WithLock.class)) {
            return bean;
        }
        Map<Method, WithLock> annotated = MethodIntrospector.selectMethods(targetClass,
                (MethodIntrospector.MetadataLookup<WithLock>) method ->
                        AnnotatedElementUtils.findMergedAnnotation(method, WithLock.class));
        for (Method method : annotated.keySet()) {
            try {
                methods.get(method, targetClass);
            } catch (IllegalStateException e) {
                throw new BeanCreationException(beanName, e.getMessage(), e);
            }
        }
        return bean;
    }
}
