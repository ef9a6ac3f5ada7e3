package dev.dlock.spring;

import dev.dlock.LockClient;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.Environment;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionParser;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * One method annotated with {@link WithLock}, its annotation checked and parsed once: the
 * key expression, the wait and lease, and what it returns when skipped.
 *
 * @param method       the annotated method (of the target class)
 * @param keyExpression the parsed key, or null for the default name
 * @param source       the key expression as written, for messages
 * @param defaultName  the name used when the key is empty
 * @param waitTime     how long to wait; null: without bound
 * @param leaseTime    the explicit lease; null: the watchdog lease
 * @param kind         which lock of the name
 * @param onBusy       what a busy lock does
 * @param skipOnOutage whether a call returns as skipped, instead of throwing, when Redis fails
 * @param holdAtLeast  the minimum hold; null: none
 * @param reactive     whether it returns a Mono or a Flux, locked from subscription to completion
 */
record LockedMethod(Method method, Expression keyExpression, String source, String defaultName,
                    Duration waitTime, Duration leaseTime, WithLock.Kind kind, WithLock.OnBusy onBusy,
                    boolean skipOnOutage, Duration holdAtLeast, boolean reactive) {

    static LockedMethod parse(Method method, WithLock annotation, ExpressionParser parser, Environment environment,
                              String[] parameterNames) {
        String where = describe(method);
        Expression expression = null;
        if (!annotation.key().isBlank()) {
            try {
                expression = parser.parseExpression(annotation.key());
            } catch (ParseException e) {
                throw new IllegalStateException("@WithLock on " + where + ": key expression \"" + annotation.key()
                        + "\" does not parse: " + e.getMessage(), e);
            }
            checkVariables(expression, method, parameterNames);
        }
        Duration wait = duration(annotation.waitTime(), "waitTime", where, environment, true);
        Duration lease = duration(annotation.leaseTime(), "leaseTime", where, environment, false);
        Duration holdAtLeast = duration(annotation.holdAtLeast(), "holdAtLeast", where, environment, true);
        if (holdAtLeast != null && holdAtLeast.compareTo(LockClient.MAX_LEASE) > 0) {
            throw new IllegalStateException("@WithLock on " + where + ": holdAtLeast \"" + annotation.holdAtLeast()
                    + "\" is longer than the longest lease, " + LockClient.MAX_LEASE);
        }
        if (holdAtLeast != null && lease != null && holdAtLeast.compareTo(lease) > 0) {
            throw new IllegalStateException("@WithLock on " + where + ": holdAtLeast \"" + annotation.holdAtLeast()
                    + "\" is longer than leaseTime \"" + annotation.leaseTime() + "\", which ends every hold before it");
        }
        Class<?> returned = method.getReturnType();
        boolean reactive = returned.getName().equals("reactor.core.publisher.Mono")
                || returned.getName().equals("reactor.core.publisher.Flux");
        if (CompletionStage.class.isAssignableFrom(returned) || Future.class.isAssignableFrom(returned)
                || (isPublisher(returned) && !reactive)) {
            throw new IllegalStateException("@WithLock on " + where + ": it returns " + returned.getName()
                    + ", whose work goes on after the method returned, when the lock would already be released;"
                    + " return a Mono or a Flux (held from subscription to completion), or take the lock inside the"
                    + " asynchronous work with the LockClient's handles (lock.acquireAsync(), then handle.releaseAsync())");
        }
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length > 0 && parameters[parameters.length - 1].getName().equals("kotlin.coroutines.Continuation")) {
            throw new IllegalStateException("@WithLock on " + where + ": it is a Kotlin suspend function, which the"
                    + " proxy sees return at its first suspension, when the lock would already be released; return a"
                    + " Mono or a Flux (mono { ... } from kotlinx-coroutines-reactor), or take the lock inside with"
                    + " lock.acquireAsync().await() and handle.releaseAsync().await()");
        }
        if (annotation.onBusy() == WithLock.OnBusy.SKIP && returned.isPrimitive() && returned != void.class) {
            throw new IllegalStateException("@WithLock on " + where + ": onBusy = SKIP returns null when the"
                    + " lock is busy, which a method returning " + returned.getName()
                    + " cannot; return void, an object or an Optional");
        }
        boolean skipOnOutage = switch (annotation.onOutage()) {
            case THROW -> false;
            case SKIP -> true;
            case DEFAULT -> annotation.onBusy() == WithLock.OnBusy.SKIP
                    && Binder.get(environment).bind("dlock.skip-on-outage", Boolean.class).orElse(true);
        };
        if (annotation.onOutage() == WithLock.OnOutage.SKIP && returned.isPrimitive() && returned != void.class) {
            throw new IllegalStateException("@WithLock on " + where + ": onOutage = SKIP returns null when Redis"
                    + " fails, which a method returning " + returned.getName()
                    + " cannot; return void, an object or an Optional");
        }
        return new LockedMethod(method, expression, annotation.key(), method.getDeclaringClass().getName() + "." + method.getName(),
                wait, lease, annotation.kind(), annotation.onBusy(), skipOnOutage, holdAtLeast, reactive);
    }

    /**
     * Refuses a {@code #variable} that is no parameter of the method: SpEL would give null for it,
     * and every call would take one lock named after "null".
     */
    private static void checkVariables(Expression expression, Method method, String[] parameterNames) {
        if (!(expression instanceof SpelExpression spel)) {
            return;
        }
        Set<String> known = new LinkedHashSet<>(List.of("root", "this"));
        for (int i = 0; i < method.getParameterCount(); i++) {
            known.add("p" + i);
            known.add("a" + i);
        }
        if (parameterNames != null) {
            known.addAll(List.of(parameterNames));
        }
        for (String variable : variables(spel.getAST(), new ArrayList<>())) {
            if (!known.contains(variable)) {
                throw new IllegalStateException("@WithLock on " + describe(method) + ": key expression \""
                        + spel.getExpressionString() + "\" names #" + variable + ", which is no parameter of the method ("
                        + (parameterNames == null
                        ? "its parameter names are not in the class file: compile with -parameters, as Spring Boot's"
                                + " build plugins do, or name them #p0, #p1, ..."
                        : parameterNames.length == 0 ? "it has none" : "its parameters: #" + String.join(", #", parameterNames)
                                + ", or #p0, #p1, ... by position")
                        + "); a key from an unknown variable would be one lock for every call");
            }
        }
    }

    private static List<String> variables(SpelNode node, List<String> found) {
        if (node instanceof VariableReference) {
            found.add(node.toStringAST().substring(1));
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            variables(node.getChild(i), found);
        }
        return found;
    }

    private static boolean isPublisher(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals("org.reactivestreams.Publisher")) {
                return true;
            }
            for (Class<?> i : c.getInterfaces()) {
                if (i.getName().equals("org.reactivestreams.Publisher") || isPublisher(i)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static Duration duration(String text, String attribute, String where, Environment environment, boolean zeroAllowed) {
        if (text.isBlank()) {
            return null;
        }
        String resolved;
        Duration value;
        try {
            resolved = environment.resolveRequiredPlaceholders(text).trim();
            value = DurationStyle.detectAndParse(resolved);
        } catch (RuntimeException e) {
            throw new IllegalStateException("@WithLock on " + where + ": " + attribute + " \"" + text
                    + "\" is not a duration such as \"5s\", \"500ms\" or \"PT1M\": " + e.getMessage(), e);
        }
        if (value.isNegative() || (!zeroAllowed && value.isZero())) {
            throw new IllegalStateException("@WithLock on " + where + ": " + attribute + " \"" + text
                    + "\" must be " + (zeroAllowed ? "zero or more" : "more than zero"));
        }
        return value;
    }

    static String describe(Method method) {
        return method.getDeclaringClass().getName() + "." + method.getName() + "()";
    }

    /** What a skipped call returns. */
    Object skippedResult() {
        return method.getReturnType() == Optional.class ? Optional.empty() : null;
    }
}
