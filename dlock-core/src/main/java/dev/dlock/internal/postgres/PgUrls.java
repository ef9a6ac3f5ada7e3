package dev.dlock.internal.postgres;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** JDBC URLs as messages may show them, and the failure inside a future's wrapper. */
final class PgUrls {

    private PgUrls() {
    }

    /** {@code jdbc:postgresql://host:port/db?user=u&password=p} → {@code postgresql://host:port/db}. */
    static String withoutCredentials(String jdbcUrl) {
        String url = jdbcUrl.startsWith("jdbc:") ? jdbcUrl.substring("jdbc:".length()) : jdbcUrl;
        int query = url.indexOf('?');
        url = query < 0 ? url : url.substring(0, query);
        int at = url.indexOf('@');
        int scheme = url.indexOf("://");
        if (at > 0 && scheme > 0 && at > scheme) {
            url = url.substring(0, scheme + 3) + url.substring(at + 1);
        }
        return url;
    }

    static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
