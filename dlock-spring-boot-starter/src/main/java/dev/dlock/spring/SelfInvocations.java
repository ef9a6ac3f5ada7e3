package dev.dlock.spring;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.ConstantDynamic;
import org.springframework.asm.Handle;
import org.springframework.asm.Label;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.SpringAsmInfo;
import org.springframework.asm.Type;

/**
 * Finds calls to a {@link WithLock @WithLock} method made on {@code this} from within the bean's
 * own classes, by reading their bytecode (with the ASM that spring-core ships): such a call never
 * passes Spring's proxy and runs without the lock.
 *
 * <p>A call counts when its receiver is {@code this}, the local variable 0 of an instance method
 * (lambdas of the class included, which capture it the same way). To know the receiver, the operand
 * stack is followed instruction by instruction, each value remembered as "this" or "something
 * else", with the stack at a jump's target taken from the jump; a call through an injected
 * reference to the bean itself ({@code self.withdraw()}, the usual remedy) does not count. A
 * method calling itself does not count either: the outer call holds its lock already. Calls from
 * nested or anonymous classes ({@code Outer.this.withdraw()}) are not looked at.
 */
final class SelfInvocations {

    private SelfInvocations() {
    }

    /**
     * One call found.
     *
     * @param caller the calling method, {@code Class.method()}
     * @param callee the {@code @WithLock} method called, {@code Class.method()}
     * @param line   the source line of the call, or -1 when the class has no line numbers
     * @param source the source file, or null
     */
    record Call(String caller, String callee, int line, String source) {

        @Override
        public String toString() {
            return caller + " calls " + callee + " on this" + (line < 0 ? "" : " (" + source + ":" + line + ")");
        }
    }

    /**
     * The calls on {@code this}, in these classes' bytecode, to the locked methods.
     *
     * @param classes the bean's class and its superclasses whose bytecode to read
     * @param locked  the {@code @WithLock} methods as name plus descriptor ({@code withdraw(J)Z}),
     *                each with its name for messages
     * @return the calls, in the order found
     */
    static List<Call> find(List<Class<?>> classes, Map<String, String> locked) {
        List<Call> calls = new ArrayList<>();
        for (Class<?> type : classes) {
            byte[] bytecode = bytecode(type);
            if (bytecode != null) {
                new ClassReader(bytecode).accept(new Scan(type, locked, calls), ClassReader.EXPAND_FRAMES);
            }
        }
        return calls;
    }

    /** A method's key in {@code locked}: its name and its descriptor. */
    static String key(String name, String descriptor) {
        return name + descriptor;
    }

    private static byte[] bytecode(Class<?> type) {
        ClassLoader loader = type.getClassLoader() != null ? type.getClassLoader() : ClassLoader.getSystemClassLoader();
        try (InputStream in = loader.getResourceAsStream(type.getName().replace('.', '/') + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }

    private static final class Scan extends ClassVisitor {
        private final Class<?> type;
        private final Map<String, String> locked;
        private final List<Call> calls;
        private String source;

        Scan(Class<?> type, Map<String, String> locked, List<Call> calls) {
            super(SpringAsmInfo.ASM_VERSION);
            this.type = type;
            this.locked = locked;
            this.calls = calls;
        }

        @Override
        public void visitSource(String source, String debug) {
            this.source = source;
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
            // a bridge method calls its bridged method on this, and is itself what the proxy intercepts
            if ((access & (Opcodes.ACC_STATIC | Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE | Opcodes.ACC_BRIDGE)) != 0) {
                return null;
            }
            String caller = type.getName() + "." + (name.startsWith("lambda$") ? lambdaOwner(name) : name) + "()";
            return new Receivers(key(name, descriptor), locked, (callee, line) ->
                    calls.add(new Call(caller, callee, line, source)));
        }

        /** {@code lambda$transfer$0}: the lambda is in {@code transfer}. */
        private static String lambdaOwner(String name) {
            String[] parts = name.split("\\$");
            return parts.length > 1 ? parts[1] : name;
        }
    }

    private interface Found {
        void call(String callee, int line);
    }

    /**
     * Follows the operand stack of one method, each value {@link #THIS} or {@link #OTHER}, and
     * reports the invocations of a locked method whose receiver is {@code this}.
     */
    private static final class Receivers extends MethodVisitor {
        private static final Object THIS = "this";
        private static final Object OTHER = "other";
        /** A long or a double: two slots, which the DUP2 and POP2 families treat as one value. */
        private static final Object WIDE = "wide";

        private final String self;
        private final Map<String, String> locked;
        private final Found found;
        /** The stack now; null after an unconditional jump, until a label that is jumped to. */
        private List<Object> stack = new ArrayList<>();
        private final Map<Label, List<Object>> atLabels = new HashMap<>();
        /** Whether local 0 still holds {@code this} (nothing stored into it). */
        private boolean thisInLocal0 = true;
        private int line = -1;

        Receivers(String self, Map<String, String> locked, Found found) {
            super(SpringAsmInfo.ASM_VERSION);
            this.self = self;
            this.locked = locked;
            this.found = found;
        }

        private void push(Object value) {
            if (stack != null) {
                stack.add(value);
            }
        }

        private void pushType(Type type) {
            if (type.getSort() == Type.VOID) {
                return;
            }
            push(type.getSize() == 2 ? WIDE : OTHER);
        }

        private Object pop() {
            return stack == null || stack.isEmpty() ? OTHER : stack.remove(stack.size() - 1);
        }

        private void pop(int values) {
            for (int i = 0; i < values; i++) {
                pop();
            }
        }

        /** Pops values filling this many slots (1 or 2), as POP2 and the DUP2 family count. */
        private List<Object> popSlots(int slots) {
            List<Object> values = new ArrayList<>();
            int taken = 0;
            while (taken < slots) {
                Object value = pop();
                values.add(0, value);
                taken += value == WIDE ? 2 : 1;
            }
            return values;
        }

        private void jumpTo(Label label) {
            if (stack == null) {
                return;
            }
            List<Object> here = new ArrayList<>(stack);
            List<Object> there = atLabels.get(label);
            atLabels.put(label, there == null ? here : merge(there, here));
        }

        private static List<Object> merge(List<Object> a, List<Object> b) {
            if (a.size() != b.size()) {
                List<Object> unknown = new ArrayList<>();
                for (Object value : a) {
                    unknown.add(value == WIDE ? WIDE : OTHER);
                }
                return unknown;
            }
            List<Object> merged = new ArrayList<>();
            for (int i = 0; i < a.size(); i++) {
                merged.add(a.get(i) == b.get(i) ? a.get(i) : a.get(i) == WIDE ? WIDE : OTHER);
            }
            return merged;
        }

        @Override
        public void visitLabel(Label label) {
            List<Object> jumped = atLabels.get(label);
            if (jumped != null) {
                stack = stack == null ? new ArrayList<>(jumped) : new ArrayList<>(merge(stack, jumped));
            }
        }

        @Override
        public void visitFrame(int kind, int locals, Object[] local, int stackSize, Object[] stackTypes) {
            if (stack == null || stack.size() != stackSize) {
                // a target no jump seen so far leads to (a loop's, a handler's): what the frame says, none of it this
                List<Object> fresh = new ArrayList<>();
                for (int i = 0; i < stackSize; i++) {
                    fresh.add(stackTypes[i] == Opcodes.LONG || stackTypes[i] == Opcodes.DOUBLE ? WIDE : OTHER);
                }
                stack = fresh;
            }
        }

        @Override
        public void visitTryCatchBlock(Label start, Label end, Label handler, String type) {
            atLabels.put(handler, new ArrayList<>(List.of(OTHER)));
        }

        @Override
        public void visitLineNumber(int line, Label start) {
            this.line = line;
        }

        @Override
        public void visitInsn(int opcode) {
            if (stack == null) {
                return;
            }
            switch (opcode) {
                case Opcodes.NOP -> { }
                case Opcodes.ACONST_NULL, Opcodes.ICONST_M1, Opcodes.ICONST_0, Opcodes.ICONST_1, Opcodes.ICONST_2,
                     Opcodes.ICONST_3, Opcodes.ICONST_4, Opcodes.ICONST_5, Opcodes.FCONST_0, Opcodes.FCONST_1,
                     Opcodes.FCONST_2 -> push(OTHER);
                case Opcodes.LCONST_0, Opcodes.LCONST_1, Opcodes.DCONST_0, Opcodes.DCONST_1 -> push(WIDE);
                case Opcodes.IALOAD, Opcodes.FALOAD, Opcodes.AALOAD, Opcodes.BALOAD, Opcodes.CALOAD, Opcodes.SALOAD -> {
                    pop(2);
                    push(OTHER);
                }
                case Opcodes.LALOAD, Opcodes.DALOAD -> {
                    pop(2);
                    push(WIDE);
                }
                case Opcodes.IASTORE, Opcodes.LASTORE, Opcodes.FASTORE, Opcodes.DASTORE, Opcodes.AASTORE,
                     Opcodes.BASTORE, Opcodes.CASTORE, Opcodes.SASTORE -> pop(3);
                case Opcodes.POP -> pop();
                case Opcodes.POP2 -> popSlots(2);
                case Opcodes.DUP -> {
                    Object top = pop();
                    push(top);
                    push(top);
                }
                case Opcodes.DUP_X1 -> {
                    Object first = pop();
                    Object second = pop();
                    push(first);
                    push(second);
                    push(first);
                }
                case Opcodes.DUP_X2 -> {
                    Object first = pop();
                    List<Object> below = popSlots(2);
                    push(first);
                    below.forEach(this::push);
                    push(first);
                }
                case Opcodes.DUP2 -> {
                    List<Object> top = popSlots(2);
                    top.forEach(this::push);
                    top.forEach(this::push);
                }
                case Opcodes.DUP2_X1 -> {
                    List<Object> top = popSlots(2);
                    Object below = pop();
                    top.forEach(this::push);
                    push(below);
                    top.forEach(this::push);
                }
                case Opcodes.DUP2_X2 -> {
                    List<Object> top = popSlots(2);
                    List<Object> below = popSlots(2);
                    top.forEach(this::push);
                    below.forEach(this::push);
                    top.forEach(this::push);
                }
                case Opcodes.SWAP -> {
                    Object first = pop();
                    Object second = pop();
                    push(first);
                    push(second);
                }
                case Opcodes.IADD, Opcodes.ISUB, Opcodes.IMUL, Opcodes.IDIV, Opcodes.IREM, Opcodes.ISHL, Opcodes.ISHR,
                     Opcodes.IUSHR, Opcodes.IAND, Opcodes.IOR, Opcodes.IXOR, Opcodes.FADD, Opcodes.FSUB, Opcodes.FMUL,
                     Opcodes.FDIV, Opcodes.FREM, Opcodes.LCMP, Opcodes.FCMPL, Opcodes.FCMPG, Opcodes.DCMPL,
                     Opcodes.DCMPG -> {
                    pop(2);
                    push(OTHER);
                }
                case Opcodes.LADD, Opcodes.LSUB, Opcodes.LMUL, Opcodes.LDIV, Opcodes.LREM, Opcodes.LSHL, Opcodes.LSHR,
                     Opcodes.LUSHR, Opcodes.LAND, Opcodes.LOR, Opcodes.LXOR, Opcodes.DADD, Opcodes.DSUB, Opcodes.DMUL,
                     Opcodes.DDIV, Opcodes.DREM -> {
                    pop(2);
                    push(WIDE);
                }
                case Opcodes.INEG, Opcodes.FNEG, Opcodes.I2F, Opcodes.F2I, Opcodes.I2B, Opcodes.I2C, Opcodes.I2S,
                     Opcodes.L2I, Opcodes.L2F, Opcodes.D2I, Opcodes.D2F, Opcodes.ARRAYLENGTH -> {
                    pop();
                    push(OTHER);
                }
                case Opcodes.LNEG, Opcodes.DNEG, Opcodes.I2L, Opcodes.I2D, Opcodes.L2D, Opcodes.F2L, Opcodes.F2D,
                     Opcodes.D2L -> {
                    pop();
                    push(WIDE);
                }
                case Opcodes.MONITORENTER, Opcodes.MONITOREXIT -> pop();
                case Opcodes.IRETURN, Opcodes.LRETURN, Opcodes.FRETURN, Opcodes.DRETURN, Opcodes.ARETURN,
                     Opcodes.RETURN, Opcodes.ATHROW -> stack = null;
                default -> stack = null;   // an opcode not listed: follow nothing until the next known stack
            }
        }

        @Override
        public void visitIntInsn(int opcode, int operand) {
            if (opcode == Opcodes.NEWARRAY) {
                pop();
            }
            push(OTHER);
        }

        @Override
        public void visitVarInsn(int opcode, int variable) {
            switch (opcode) {
                case Opcodes.ALOAD -> push(variable == 0 && thisInLocal0 ? THIS : OTHER);
                case Opcodes.ILOAD, Opcodes.FLOAD -> push(OTHER);
                case Opcodes.LLOAD, Opcodes.DLOAD -> push(WIDE);
                case Opcodes.ISTORE, Opcodes.LSTORE, Opcodes.FSTORE, Opcodes.DSTORE, Opcodes.ASTORE -> {
                    pop();
                    if (variable == 0) {
                        thisInLocal0 = false;
                    }
                }
                default -> stack = null;   // RET
            }
        }

        @Override
        public void visitTypeInsn(int opcode, String type) {
            if (opcode == Opcodes.NEW) {
                push(OTHER);
            } else if (opcode == Opcodes.CHECKCAST) {
                // a cast keeps the value: ((Accounts) this).withdraw() is still this
                push(pop());
            } else {
                pop();
                push(OTHER);
            }
        }

        @Override
        public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
            Type type = Type.getType(descriptor);
            switch (opcode) {
                case Opcodes.GETSTATIC -> pushType(type);
                case Opcodes.PUTSTATIC -> pop();
                case Opcodes.GETFIELD -> {
                    pop();
                    pushType(type);
                }
                default -> pop(2);   // PUTFIELD
            }
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
            Type method = Type.getMethodType(descriptor);
            pop(method.getArgumentTypes().length);
            if (opcode != Opcodes.INVOKESTATIC) {
                Object receiver = pop();
                String key = key(name, descriptor);
                String callee = locked.get(key);
                if (receiver == THIS && callee != null && !key.equals(self) && !name.equals("<init>")) {
                    found.call(callee, line);
                }
            }
            pushType(method.getReturnType());
        }

        @Override
        public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrap, Object... arguments) {
            Type method = Type.getMethodType(descriptor);
            pop(method.getArgumentTypes().length);
            pushType(method.getReturnType());
        }

        @Override
        public void visitJumpInsn(int opcode, Label label) {
            switch (opcode) {
                case Opcodes.IFEQ, Opcodes.IFNE, Opcodes.IFLT, Opcodes.IFGE, Opcodes.IFGT, Opcodes.IFLE, Opcodes.IFNULL,
                     Opcodes.IFNONNULL -> pop();
                case Opcodes.IF_ICMPEQ, Opcodes.IF_ICMPNE, Opcodes.IF_ICMPLT, Opcodes.IF_ICMPGE, Opcodes.IF_ICMPGT,
                     Opcodes.IF_ICMPLE, Opcodes.IF_ACMPEQ, Opcodes.IF_ACMPNE -> pop(2);
                default -> { }   // GOTO; JSR is not in class files of Java 7 and later
            }
            jumpTo(label);
            if (opcode == Opcodes.GOTO || opcode == Opcodes.JSR) {
                stack = null;
            }
        }

        @Override
        public void visitLdcInsn(Object value) {
            boolean wide = value instanceof Long || value instanceof Double
                    || (value instanceof ConstantDynamic constant && constant.getSize() == 2);
            push(wide ? WIDE : OTHER);
        }

        @Override
        public void visitTableSwitchInsn(int min, int max, Label defaultLabel, Label... labels) {
            pop();
            jumpTo(defaultLabel);
            for (Label label : labels) {
                jumpTo(label);
            }
            stack = null;
        }

        @Override
        public void visitLookupSwitchInsn(Label defaultLabel, int[] keys, Label[] labels) {
            visitTableSwitchInsn(0, 0, defaultLabel, labels);
        }

        @Override
        public void visitMultiANewArrayInsn(String descriptor, int dimensions) {
            pop(dimensions);
            push(OTHER);
        }
    }
}
