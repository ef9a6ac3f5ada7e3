package dev.dlock.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** Library versions, filled in by Maven from the build's properties. */
public final class Versions {

    public static final String LETTUCE;
    public static final String REDISSON;
    public static final String JMH;

    static {
        Properties properties = new Properties();
        try (InputStream in = Versions.class.getResourceAsStream("versions.properties")) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        LETTUCE = properties.getProperty("lettuce", "?");
        REDISSON = properties.getProperty("redisson", "?");
        JMH = properties.getProperty("jmh", "?");
    }

    private Versions() {
    }
}
