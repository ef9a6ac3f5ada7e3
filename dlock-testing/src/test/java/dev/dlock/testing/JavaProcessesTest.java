package dev.dlock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class JavaProcessesTest {

    /** Child main: prints its arguments and JVM options and exits with 3, or sleeps when asked to. */
    public static final class Child {
        public static void main(String[] args) throws InterruptedException {
            System.out.println("hello " + String.join(",", args));
            System.out.println("options " + ManagementFactory.getRuntimeMXBean().getInputArguments());
            System.err.println("to stderr");
            if (args.length > 0 && args[0].equals("sleep")) {
                Thread.sleep(60_000);
            }
            System.exit(3);
        }
    }

    @Test
    void runsMainClassOnTheTestClassPath() {
        try (JavaProcess child = JavaProcesses.start(Child.class, List.of("a", "b"))) {
            assertThat(child.waitFor(Duration.ofSeconds(20))).isEqualTo(3);
            assertThat(child.log()).contains("hello a,b").contains("to stderr");
            assertThat(child.logFile()).exists();
            // a worker JVM starts as a short-lived one
            JavaProcesses.STARTUP_OPTIONS.forEach(option -> assertThat(child.log()).contains(option));
        }
    }

    @Test
    void killAndTimeout() {
        Path java = JavaProcesses.findJava(17).orElseThrow();
        try (JavaProcess child = JavaProcesses.start(java, List.of("-Xmx32m"), Child.class, List.of("sleep"))) {
            assertThatThrownBy(() -> child.waitFor(Duration.ofMillis(100)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("did not exit");
            child.kill();
            assertThat(child.process().isAlive()).isFalse();
            assertThat(child.process().exitValue()).isEqualTo(137);
        }
    }

    @Test
    void findJava() {
        assertThat(JavaProcesses.findJava(Runtime.version().feature()))
                .contains(Path.of(System.getProperty("java.home"), "bin", "java"));
        assertThat(JavaProcesses.findJava(999)).isEmpty();
        assertThat(JavaProcesses.featureOf("25.0.1")).hasValue(25);
        assertThat(JavaProcesses.featureOf("21")).hasValue(21);
        assertThat(JavaProcesses.featureOf("1.8.0_392")).hasValue(8);
    }

    @Test
    void findsNewerInstalledJdk() {
        // Only meaningful where a newer JDK is installed (CI images for this project have one).
        int newer = Runtime.version().feature() + 1;
        JavaProcesses.findJava(newer).ifPresent(java -> {
            try (JavaProcess child = JavaProcesses.start(java, List.of(), Child.class, List.of("x"))) {
                assertThat(child.waitFor(Duration.ofSeconds(20))).isEqualTo(3);
            }
        });
    }
}
