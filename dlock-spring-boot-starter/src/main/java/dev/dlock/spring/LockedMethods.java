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
import org.springframework.expression.spel.ExpressionState;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.OpPlus;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
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
            return LockedMethod.parse(m, annotation, parser, environment, parameterNames.getParameterNames(m));
        });
    }

    /**
     * The lock name for one call.
     *
     * @throws IllegalArgumentException the expression failed or gave null or a blank name
     */
    String lockName(LockedMethod locked, Object target, Object[] args) {
        if (locked.keyExpression() == null) {
            return locked.fixedName();
        }
        Object value;
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
                new KeyRoot(locked.method(), args, target), locked.method(), args, parameterNames);
        context.setBeanResolver(new BeanFactoryResolver(beanFactory));
        try {
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
        String name = value.toString();
        if (name.contains("null")) {
            String nullPart = nullOperand(((SpelExpression) locked.keyExpression()).getAST(), new ExpressionState(context));
            if (nullPart != null) {
                throw new IllegalArgumentException("@WithLock on " + LockedMethod.describe(locked.method())
                        + ": key expression \"" + locked.source() + "\" gave '" + name + "' because " + nullPart
                        + " is null; a lock named after null would be one lock for every such call");
            }
        }
        return name;
    }

    /**
     * The first variable, or operand of a string concatenation, that is null in this call; null
     * when none is. Only asked when the name holds "null", so a name like "nullable-report" costs
     * a second look, not a failure.
     */
    private static String nullOperand(SpelNode node, ExpressionState state) {
        if (node instanceof VariableReference || node.getChildCount() == 0) {
            return node instanceof VariableReference && valueOf(node, state) == null ? node.toStringAST() : null;
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            SpelNode child = node.getChild(i);
            if (node instanceof OpPlus && valueOf(child, state) == null) {
                return child.toStringAST();
            }
            String inside = nullOperand(child, state);
            if (inside != null) {
                return inside;
            }
        }
        return null;
    }

    private static Object valueOf(SpelNode node, ExpressionState state) {
        try {
            return node.getValue(state);
        } catch (RuntimeException e) {
            return "";   // an operand that fails alone is not the null this looks for
        }
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
