package dev.dlock.spring;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.asm.Type;
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
    private static final Logger log = LoggerFactory.getLogger(WithLockMethodCheck.class);

    private final LockedMethods methods;
    private final WithLockClient client;
    private final DlockProperties.SelfInvocation selfInvocation;
    private final Set<String> annotated = new TreeSet<>();
    private final Set<Class<?>> scanned = ConcurrentHashMap.newKeySet();
    private final AtomicLong scanNanos = new AtomicLong();

    WithLockMethodCheck(LockedMethods methods, WithLockClient client, DlockProperties.SelfInvocation selfInvocation) {
        this.methods = methods;
        this.client = client;
        this.selfInvocation = selfInvocation;
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
        if (selfInvocation != DlockProperties.SelfInvocation.IGNORE && !found.isEmpty()
                && scanned.add(ClassUtils.getUserClass(targetClass))) {
            checkSelfInvocations(ClassUtils.getUserClass(targetClass), found.keySet(), beanName);
        }
        return bean;
    }

    /**
     * Warns about (or, with {@code dlock.self-invocation=fail}, refuses) calls on {@code this} to
     * an annotated method from within the bean's own classes: they never pass the proxy, so they
     * run without the lock, and nothing else would say so.
     */
    private void checkSelfInvocations(Class<?> type, Set<Method> annotatedMethods, String beanName) {
        long start = System.nanoTime();
        Map<String, String> locked = new HashMap<>();
        for (Method method : annotatedMethods) {
            locked.put(SelfInvocations.key(method.getName(), Type.getMethodDescriptor(method)), LockedMethod.describe(method));
        }
        List<Class<?>> classes = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class && !isPlatform(c); c = c.getSuperclass()) {
            classes.add(c);
        }
        List<SelfInvocations.Call> calls = SelfInvocations.find(classes, locked);
        scanNanos.addAndGet(System.nanoTime() - start);
        if (calls.isEmpty()) {
            return;
        }
        if (selfInvocation == DlockProperties.SelfInvocation.FAIL) {
            throw new BeanCreationException(beanName, "@WithLock methods called on this", new StartupRefusal(
                    "@WithLock methods of bean '" + beanName + "' are called on this, which does not pass Spring's proxy,"
                            + " so these calls run without the lock: " + calls.stream().map(Object::toString)
                            .collect(Collectors.joining("; ")),
                    "call them through the bean (from another bean, or through the bean injected into itself), or move"
                            + " the lock to the method called from outside; set dlock.self-invocation=warn to start anyway"));
        }
        for (SelfInvocations.Call call : calls) {
            log.warn("{}: the call does not pass Spring's proxy, so it runs without the lock; call it through the"
                    + " bean (from another bean, or through the bean injected into itself), or set"
                    + " dlock.self-invocation=ignore if it needs no lock (=fail refuses to start)", call);
        }
    }

    /** Classes of the JDK and of Spring, which call no annotated method of the application's. */
    private static boolean isPlatform(Class<?> type) {
        String name = type.getName();
        return name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jakarta.")
                || name.startsWith("kotlin.") || name.startsWith("org.springframework.");
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
            throw new StartupRefusal("@WithLock on " + LockedMethod.describe(method) + ": the method is " + why
                    + ", so Spring's proxy never sees its calls and it would run without the lock", "make it public,"
                    + " protected or package-private, not static nor final"
                    + (why.startsWith("not") ? ", or proxy the class (spring.aop.proxy-target-class=true)" : ""));
        }
    }

    private static boolean declares(Class<?> type, Method method) {
        return ClassUtils.hasMethod(type, method.getName(), method.getParameterTypes());
    }

    @Override
    public void afterSingletonsInstantiated() {
        if (!scanned.isEmpty()) {
            log.debug("self-invocation check: the bytecode of {} annotated bean class(es) and their superclasses read in"
                    + " {} ms", scanned.size(), TimeUnit.NANOSECONDS.toMillis(scanNanos.get()));
        }
        List<String> names;
        synchronized (annotated) {
            names = new ArrayList<>(annotated);
        }
        if (!names.isEmpty()) {
            client.lookUp(names);
        }
    }
}
