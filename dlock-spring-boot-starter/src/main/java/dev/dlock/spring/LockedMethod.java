package dev.dlock.spring;

import dev.dlock.LockClient;
import dev.dlock.LockKind;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.Environment;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionParser;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.Projection;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.Selection;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * One method annotated with {@link WithLock}, its annotation checked and parsed once: the
 * key expression, the wait and lease, and what it returns when skipped.
 *
 * @param method       the annotated method (of the target class)
 * @param keyExpression the parsed key, or null for the default name
 * @param source       the key expression as written, for messages
 * @param fixedName    the name used when there is no key expression: the {@code name} attribute, placeholders
 *                     resolved, or the method's full name
 * @param waitTime     how long to wait; null: without bound
 * @param leaseTime    the explicit lease; null: the watchdog lease
 * @param kind         which lock of the name
 * @param onBusy       what a busy lock does
 * @param skipOnOutage whether a call returns as skipped, instead of throwing, when Redis fails
 * @param holdAtLeast  the minimum hold; null: none
 * @param reactive     whether it returns a Mono or a Flux, locked from subscription to completion
 */
record LockedMethod(Method method, Expression keyExpression, String source, String fixedName,
                    Duration waitTime, Duration leaseTime, LockKind kind, WithLock.OnBusy onBusy,
                    boolean skipOnOutage, Duration holdAtLeast, boolean reactive) {

    /** What {@code #root.x} offers, also read as plain {@code x}: the properties of {@link LockedMethods.KeyRoot}. */
    private static final Set<String> ROOT_PROPERTIES = Set.of("method", "args", "target", "class");
    private static final Set<String> ROOT_METHODS = Arrays.stream(LockedMethods.KeyRoot.class.getMethods())
            .map(method -> method.getName() + "()").collect(Collectors.toUnmodifiableSet());

    static LockedMethod parse(Method method, WithLock annotation, ExpressionParser parser, Environment environment,
                              String[] parameterNames) {
        String where = describe(method);
        Expression expression = null;
        if (!annotation.key().isBlank() && !annotation.name().isBlank()) {
            throw new StartupRefusal("@WithLock on " + where + ": both key \"" + annotation.key() + "\" and name \""
                    + annotation.name() + "\" are set, and a lock has one name", "keep the key (SpEL over the arguments)"
                    + " or the name (fixed), not both");
        }
        if (!annotation.key().isBlank()) {
            try {
                expression = parser.parseExpression(annotation.key());
            } catch (ParseException e) {
                throw new StartupRefusal("@WithLock on " + where + ": key expression \"" + annotation.key()
                        + "\" does not parse: " + e.getMessage(), "correct the SpEL expression (a fixed name is"
                        + " name = \"...\", no expression)", e);
            }
            checkVariables(expression, method, parameterNames);
            checkRootReferences(expression, method);
        }
        String fixedName = annotation.name().isBlank() ? method.getDeclaringClass().getName() + "." + method.getName()
                : fixedName(annotation.name(), where, environment);
        // a job that skips when another host runs it must not queue behind that host first
        Duration wait = annotation.waitTime().isBlank() && annotation.onBusy() == WithLock.OnBusy.SKIP ? Duration.ZERO
                : duration(annotation.waitTime(), "waitTime", where, environment, true);
        Duration lease = duration(annotation.leaseTime(), "leaseTime", where, environment, false);
        Duration holdAtLeast = duration(annotation.holdAtLeast(), "holdAtLeast", where, environment, true);
        if (holdAtLeast != null && holdAtLeast.compareTo(LockClient.MAX_LEASE) > 0) {
            throw new StartupRefusal("@WithLock on " + where + ": holdAtLeast \"" + annotation.holdAtLeast()
                    + "\" is longer than the longest lease, " + LockClient.MAX_LEASE, "shorten holdAtLeast");
        }
        if (holdAtLeast != null && lease != null && holdAtLeast.compareTo(lease) > 0) {
            throw new StartupRefusal("@WithLock on " + where + ": holdAtLeast \"" + annotation.holdAtLeast()
                    + "\" is longer than leaseTime \"" + annotation.leaseTime() + "\", which ends every hold before it",
                    "make holdAtLeast at most the leaseTime");
        }
        Class<?> returned = method.getReturnType();
        boolean reactive = returned.getName().equals("reactor.core.publisher.Mono")
                || returned.getName().equals("reactor.core.publisher.Flux");
        if (CompletionStage.class.isAssignableFrom(returned) || Future.class.isAssignableFrom(returned)
                || (isPublisher(returned) && !reactive)) {
            throw new StartupRefusal("@WithLock on " + where + ": it returns " + returned.getName()
                    + ", whose work goes on after the method returned, when the lock would already be released",
                    "return a Mono or a Flux (held from subscription to completion), or take the lock inside the"
                    + " asynchronous work with the LockClient's handles (lock.acquireAsync(), then handle.releaseAsync())");
        }
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length > 0 && parameters[parameters.length - 1].getName().equals("kotlin.coroutines.Continuation")) {
            throw new StartupRefusal("@WithLock on " + where + ": it is a Kotlin suspend function, which the"
                    + " proxy sees return at its first suspension, when the lock would already be released", "return a"
                    + " Mono or a Flux (mono { ... } from kotlinx-coroutines-reactor), or take the lock inside with"
                    + " lock.acquireAsync().await() and handle.releaseAsync().await()");
        }
        if (annotation.onBusy() == WithLock.OnBusy.SKIP && returned.isPrimitive() && returned != void.class) {
            throw new StartupRefusal("@WithLock on " + where + ": onBusy = SKIP returns null when the"
                    + " lock is busy, which a method returning " + returned.getName() + " cannot",
                    "return void, an object or an Optional");
        }
        if (annotation.kind() == LockKind.PERMIT) {
            throw new StartupRefusal("@WithLock on " + where + ": kind = PERMIT names a semaphore's permit, whose"
                    + " count an annotation cannot give", "use REENTRANT, FAIR, READ or WRITE, or take the permit with"
                    + " LockClient.getSemaphore(name, permits)");
        }
        boolean skipOnOutage = switch (annotation.onOutage()) {
            case THROW -> false;
            case SKIP -> true;
            case DEFAULT -> annotation.onBusy() == WithLock.OnBusy.SKIP
                    && Binder.get(environment).bind("dlock.skip-on-outage", Boolean.class).orElse(true);
        };
        if (annotation.onOutage() == WithLock.OnOutage.SKIP && returned.isPrimitive() && returned != void.class) {
            throw new StartupRefusal("@WithLock on " + where + ": onOutage = SKIP returns null when Redis"
                    + " fails, which a method returning " + returned.getName() + " cannot",
                    "return void, an object or an Optional");
        }
        return new LockedMethod(method, expression, annotation.key(), fixedName, wait, lease, annotation.kind(), annotation.onBusy(), skipOnOutage, holdAtLeast, reactive);
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
                throw new StartupRefusal("@WithLock on " + describe(method) + ": key expression \""
                        + spel.getExpressionString() + "\" names #" + variable + ", which is no parameter of the method ("
                        + (parameterNames == null
                        ? "its parameter names are not in the class file: compile with -parameters, as Spring Boot's"
                                + " build plugins do, or name them #p0, #p1, ..."
                        : parameterNames.length == 0 ? "it has none" : "its parameters: #" + String.join(", #", parameterNames)
                                + ", or #p0, #p1, ... by position")
                        + "); a key from an unknown variable would be one lock for every call",
                        "name a parameter of the method in the key");
            }
        }
    }

    /**
     * Refuses a word the key reads from the root object that the root object does not have: a
     * name written where an expression is expected ({@code key = "nightly-report"}, which SpEL
     * reads as the property {@code nightly} minus the property {@code report}) fails every call.
     */
    private static void checkRootReferences(Expression expression, Method method) {
        if (!(expression instanceof SpelExpression spel)) {
            return;
        }
        List<String> unknown = rootReferences(spel.getAST(), new ArrayList<>()).stream()
                .filter(word -> !ROOT_PROPERTIES.contains(word) && !ROOT_METHODS.contains(word)).distinct().toList();
        if (!unknown.isEmpty()) {
            String key = spel.getExpressionString();
            throw new StartupRefusal("@WithLock on " + describe(method) + ": key expression \"" + key + "\" reads "
                    + String.join(", ", unknown) + " as " + (unknown.size() == 1 ? "a property" : "properties")
                    + " of the call, which has none of that name (only method, args and target), so every call would"
                    + " fail", "for a fixed lock name write name = \"" + key + "\" (or key = \"'" + key + "'\", quoted);"
                    + " a parameter is #name");
        }
    }

    /**
     * The property and method names read from the root object: those of the expression itself, of
     * the first step of a chain ({@code a.b}: {@code a}), and those in arguments and indexes
     * (evaluated against the root too); not the later steps of a chain, nor what a selection or
     * projection reads from its elements.
     */
    private static List<String> rootReferences(SpelNode node, List<String> found) {
        if (node instanceof PropertyOrFieldReference property) {
            found.add(property.getName());
        } else if (node instanceof MethodReference reference) {
            found.add(reference.getName() + "()");
        }
        if (node instanceof Selection || node instanceof Projection) {
            return found;
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            SpelNode child = node.getChild(i);
            if (node instanceof CompoundExpression && i > 0) {
                for (int j = 0; j < child.getChildCount(); j++) {
                    rootReferences(child.getChild(j), found);
                }
            } else {
                rootReferences(child, found);
            }
        }
        return found;
    }

    private static String fixedName(String name, String where, Environment environment) {
        String resolved;
        try {
            resolved = environment.resolveRequiredPlaceholders(name);
        } catch (IllegalArgumentException e) {
            throw new StartupRefusal("@WithLock on " + where + ": name \"" + name + "\" has a placeholder no"
                    + " property resolves: " + e.getMessage(), "define the property, or give the placeholder a default"
                    + " (${property:default})", e);
        }
        if (resolved.isBlank()) {
            throw new StartupRefusal("@WithLock on " + where + ": name \"" + name + "\" resolves to a blank name",
                    "give the lock a name that is not blank");
        }
        return resolved;
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
            throw new StartupRefusal("@WithLock on " + where + ": " + attribute + " \"" + text
                    + "\" is not a duration: " + e.getMessage(), "write a duration such as \"5s\", \"500ms\" or \"PT1M\","
                    + " or a ${property} that holds one", e);
        }
        if (value.isNegative() || (!zeroAllowed && value.isZero())) {
            throw new StartupRefusal("@WithLock on " + where + ": " + attribute + " \"" + text
                    + "\" is " + (value.isNegative() ? "negative" : "zero"), "make " + attribute + " "
                    + (zeroAllowed ? "zero or more" : "more than zero"));
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
