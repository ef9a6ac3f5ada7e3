package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dlock.testing.JavaProcess;
import dev.dlock.testing.JavaProcesses;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * "Interactive or not" on JDK 22 and newer, where {@link System#console()} is non-null even when
 * the streams are redirected: run in a child JVM of such a JDK, redirected and at a terminal.
 */
class TerminalTest {

    private static Path java22() {
        Optional<Path> java = JavaProcesses.findJava(22);
        assumeTrue(java.isPresent(), "skipped: no JDK 22+ found (install one under /usr/lib/jvm)");
        return java.get();
    }

    @Test
    void redirectedStreamsAreNotInteractiveOnJdk22AndNewer() {
        try (JavaProcess probe = JavaProcesses.start(java22(), List.of(), TerminalProbe.class, List.of())) {
            assertThat(probe.waitFor(Duration.ofMinutes(1))).as(probe.log()).isZero();
            assertThat(probe.log()).contains("interactive=false");
        }
    }

    @Test
    void aTerminalIsInteractiveOnJdk22AndNewer() throws IOException, InterruptedException {
        Path java = java22();
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/script")), "skipped: script(1) is needed to give the JVM a terminal");
        String command = java + " -cp " + System.getProperty("java.class.path") + " " + TerminalProbe.class.getName();
        Process process = new ProcessBuilder("/usr/bin/script", "-qec", command, "/dev/null")
                .redirectErrorStream(true).start();
        process.getOutputStream().close();
        assertThat(process.waitFor(1, TimeUnit.MINUTES)).isTrue();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(output).contains("interactive=true");
    }
}
