package dev.dlock.spring;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * Parses every {@link WithLock} of a bean when the bean is created, so that a malformed key
 * expression, duration or return type, or a method the proxy cannot intercept, fails the
 * startup, naming the bean, the method and the value, instead of the first call (or, for a
 * method that cannot be intercepted, instead of never locking). Once the singletons exist, it
 * checks that there is a {@code LockClient} to lock with.
 */
final class WithLockMethodCheck implements BeanPostProcessor, SmartInitializingSingleton {
    private final LockedMethods methods;
    private final WithLockClient client;
    private final Set<String> annotated = new TreeSet<>();

    WithLockMethodCheck(LockedMethods methods, WithLockClient client) {
        this.methods = methods;
        this.client = client;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> targetClass = AopUtils.getTargetClass(bean);
        if (!AnnotationUtils.isCandidateClass(targetClass, WithLock.class)) {
            return bean;
        }
        Map<Method, WithLock> found = MethodIntrospector.selectMethods(targetClass,
                (MethodIntrospector.MetadataLookup<WithLock>) method ->
                        AnnotatedElementUtils.findMergedAnnotation(method, WithLock.class));
        for (Method method : found.keySet()) {
            try {
                checkInterceptable(method, bean);
                methods.get(method, targetClass);
            } catch (IllegalStateException e) {
                throw new BeanCreationException(beanName, e.getMessage(), e);
            }
            synchronized (annotated) {
                annotated.add(LockedMethod.describe(method));
            }
        }
        return bean;
    }

    /**
     * Refuses a method whose calls the proxy never sees, which would run without the lock: a
     * private, static or final one, or, behind an interface-based proxy, one of no proxied interface.
     */
    private static void checkInterceptable(Method method, Object bean) {
        int modifiers = method.getModifiers();
        String why = Modifier.isPrivate(modifiers) ? "private" : Modifier.isStatic(modifiers) ? "static"
                : Modifier.isFinal(modifiers) ? "final" : null;
        if (why == null && AopUtils.isJdkDynamicProxy(bean)
                && java.util.Arrays.stream(ClassUtils.getAllInterfaces(bean)).noneMatch(type -> declares(type, method))) {
            why = "not on an interface of its interface-based proxy";
        }
        if (why != null) {
            throw new IllegalStateException("@WithLock on " + LockedMethod.describe(method) + ": the method is " + why
                    + ", so Spring's proxy never sees its calls and it would run without the lock; make it public,"
                    + " protected or package-private, not static nor final"
                    + (why.startsWith("not") ? ", or proxy the class (spring.aop.proxy-target-class=true)" : ""));
        }
    }

    private static boolean declares(Class<?> type, Method method) {
        return ClassUtils.hasMethod(type, method.getName(), method.getParameterTypes());
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<String> names;
        synchronized (annotated) {
            names = new ArrayList<>(annotated);
        }
        if (!names.isEmpty()) {
            client.lookUp(names);
        }
    }
}
