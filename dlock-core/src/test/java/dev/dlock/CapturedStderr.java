package dev.dlock;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What is written to {@code System.err} during each test, for tests that read dlock's log: the
 * tests' SLF4J binding, slf4j-simple, writes to the current {@code System.err}. After the test the
 * real stream is put back and the capture copied to it, so that it still shows in the test output.
 *
 * <pre>{@code
 * @RegisterExtension
 * final CapturedStderr stderr = new CapturedStderr();
 * }</pre>
 */
final class CapturedStderr implements BeforeEachCallback, AfterEachCallback {

    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private PrintStream original;

    /** @return everything written to {@code System.err} in this test so far */
    String text() {
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        captured.reset();
        original = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        System.setErr(original);
        original.print(text());
    }
}
