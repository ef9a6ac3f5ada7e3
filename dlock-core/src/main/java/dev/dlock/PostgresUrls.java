package dev.dlock;

import dev.dlock.internal.postgres.PgUrls;
import dev.dlock.internal.postgres.PostgresStores;

/**
 * PostgreSQL URLs as {@link PostgresStore#url(String)} takes them, for tools that open
 * connections of their own to the same database (the CLI's doctor and demo): the JDBC form the
 * client connects with, and the form a message may show.
 */
public final class PostgresUrls {

    private PostgresUrls() {
    }

    /**
     * The JDBC form of a PostgreSQL URL, as the client connects with it.
     *
     * @param url {@code jdbc:postgresql://host[:port]/database?user=...&password=...}, or libpq's
     *     {@code postgresql://user:password@host[:port]/database} ({@code postgres://...}; several hosts,
     *     {@code target_session_attrs} and the like become the driver's parameters)
     * @return the JDBC URL, with the credentials it was given
     * @throws IllegalArgumentException not a PostgreSQL URL, or a form the JDBC driver cannot take (a
     *     Unix socket, a service file); the message names the form that works, never the password
     * @throws IllegalStateException the PostgreSQL JDBC driver is not on the class path
     */
    public static String jdbc(String url) {
        return PostgresStores.jdbcUrl(url);
    }

    /**
     * A URL as a message may show it: {@code jdbc:postgresql://user:password@host:5432/db?password=...}
     * becomes {@code postgresql://host:5432/db}.
     *
     * @param url a JDBC or libpq URL
     * @return the URL without the {@code jdbc:} prefix, its user and password, and its parameters
     */
    public static String withoutCredentials(String url) {
        return PgUrls.withoutCredentials(url);
    }
}
