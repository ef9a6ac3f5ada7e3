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
 * Parses every {@link DistributedLock} of a bean when the bean is created, so that a malformed key
 * expression, duration or return type fails the startup, naming the bean, the method and the
 * value, instead of the first call.
 */
final class DistributedLockMethodCheck implements BeanPostProcessor {
    private final LockedMethods methods;

    DistributedLockMethodCheck(LockedMethods methods) {
        this.methods = methods;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> targetClass = AopUtils.getTargetClass(bean);
        if (!AnnotationUtils.isCandidateClass(targetClass, DistributedLock.class)) {
            return bean;
        }
        Map<Method, DistributedLock> annotated = MethodIntrospector.selectMethods(targetClass,
                (MethodIntrospector.MetadataLookup<DistributedLock>) method ->
                        AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class));
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
