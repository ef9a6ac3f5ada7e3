package dev.dlock.internal.postgres;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * PostgreSQL URLs: libpq's form ({@code postgresql://user:password@host:port,host:port/db?...}, what
 * psql and most tools take) turned into the JDBC driver's, URLs as messages may show them, and the
 * failure inside a future's wrapper.
 */
public final class PgUrls {

    /** libpq's parameters and the JDBC driver's name for each. */
    private static final Map<String, String> JDBC_NAMES = Map.of("application_name", "ApplicationName",
            "connect_timeout", "connectTimeout", "gssencmode", "gssEncMode");

    /** libpq's target_session_attrs and the JDBC driver's targetServerType of the same meaning. */
    private static final Map<String, String> SERVER_TYPES = Map.of("any", "any", "read-write", "primary",
            "primary", "primary", "read-only", "secondary", "standby", "secondary", "prefer-standby", "preferSecondary");

    private PgUrls() {
    }

    /**
     * The JDBC form of a libpq URL ({@code postgresql://} or {@code postgres://}), or of a JDBC URL
     * with {@code user:password@} (which the driver would take for the host); other JDBC URLs as
     * they are. User, password and database are percent-decoded; several hosts are kept in order;
     * {@code target_session_attrs}, {@code application_name}, {@code connect_timeout} and
     * {@code load_balance_hosts} become the driver's parameters, and the rest pass as they are
     * ({@code sslmode}, {@code options}, the driver's own).
     *
     * @throws IllegalArgumentException a form the driver cannot take (a Unix socket, a service
     *     file, a password file), naming the form that works
     */
    static String toJdbc(String url) {
        String rest;
        if (url.startsWith("postgresql://")) {
            rest = url.substring("postgresql://".length());
        } else if (url.startsWith("postgres://")) {
            rest = url.substring("postgres://".length());
        } else {
            String jdbc = url.substring("jdbc:postgresql:".length());
            if (!jdbc.startsWith("//") || authority(jdbc.substring(2)).indexOf('@') < 0) {
                return url;
            }
            rest = jdbc.substring(2);
        }
        int queryStart = rest.indexOf('?');
        String query = queryStart < 0 ? "" : rest.substring(queryStart + 1);
        rest = queryStart < 0 ? rest : rest.substring(0, queryStart);
        String authority = authority(rest);
        String database = decode(rest.substring(authority.length()).replaceFirst("^/", ""));

        Map<String, String> parameters = new LinkedHashMap<>();
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = authority.substring(0, at);
            int colon = userInfo.indexOf(':');
            parameters.put("user", decode(colon < 0 ? userInfo : userInfo.substring(0, colon)));
            if (colon >= 0) {
                parameters.put("password", decode(userInfo.substring(colon + 1)));
            }
            authority = authority.substring(at + 1);
        }
        String hosts = authority;
        String ports = null;
        for (String pair : query.isEmpty() ? new String[0] : query.split("&")) {
            int equals = pair.indexOf('=');
            String name = decode(equals < 0 ? pair : pair.substring(0, equals));
            String value = equals < 0 ? "" : decode(pair.substring(equals + 1));
            switch (name) {
                case "host" -> {
                    if (value.startsWith("/") || value.startsWith("@")) {
                        throw unixSocket(url);
                    }
                    hosts = value;
                }
                case "port" -> ports = value;
                case "dbname" -> database = value;
                case "target_session_attrs" -> {
                    String type = SERVER_TYPES.get(value);
                    if (type == null) {
                        throw new IllegalArgumentException("target_session_attrs=" + value + " in '" + withoutCredentials(url)
                                + "' is not one of " + String.join(", ", SERVER_TYPES.keySet()));
                    }
                    parameters.put("targetServerType", type);
                }
                case "load_balance_hosts" -> parameters.put("loadBalanceHosts", Boolean.toString(value.equals("random")));
                case "service", "passfile", "hostaddr", "requirepeer" -> throw new IllegalArgumentException(name
                        + "= in '" + withoutCredentials(url) + "' is libpq's alone, the JDBC driver does not read it: give "
                        + "postgresql://user:password@host:5432/database (or jdbc:postgresql://host:5432/database"
                        + "?user=...&password=...)");
                default -> parameters.put(JDBC_NAMES.getOrDefault(name, name), value);
            }
        }
        if (hosts.isEmpty() || hosts.startsWith("%2F") || hosts.startsWith("%2f")) {
            throw unixSocket(url);
        }
        StringBuilder jdbc = new StringBuilder("jdbc:postgresql://").append(withPorts(hosts, ports, url))
                .append('/').append(URLEncoder.encode(database, StandardCharsets.UTF_8).replace("+", "%20"));
        char separator = '?';
        for (Map.Entry<String, String> parameter : parameters.entrySet()) {
            jdbc.append(separator).append(parameter.getKey()).append('=')
                    .append(URLEncoder.encode(parameter.getValue(), StandardCharsets.UTF_8));
            separator = '&';
        }
        return jdbc.toString();
    }

    /** {@code host[:port],...} up to the path. */
    private static String authority(String rest) {
        int slash = rest.indexOf('/');
        return slash < 0 ? rest : rest.substring(0, slash);
    }

    /** {@code a,b:5433} with {@code port=5432,5434} → {@code a:5432,b:5433}, as libpq pairs them. */
    private static String withPorts(String hosts, String ports, String url) {
        String[] hostList = hosts.split(",", -1);
        String[] portList = ports == null ? new String[0] : ports.split(",", -1);
        if (portList.length > 1 && portList.length != hostList.length) {
            throw new IllegalArgumentException("'" + withoutCredentials(url) + "' names " + hostList.length + " hosts and "
                    + portList.length + " ports: give one port for all, or one per host");
        }
        List<String> paired = new ArrayList<>();
        for (int i = 0; i < hostList.length; i++) {
            String host = hostList[i].strip();
            boolean hasPort = host.startsWith("[") ? host.contains("]:") : host.contains(":");
            if (host.isEmpty()) {
                throw unixSocket(url);
            }
            String port = portList.length == 0 ? null : portList[portList.length == 1 ? 0 : i];
            paired.add(hasPort || port == null || port.isEmpty() ? host : host + ":" + port);
        }
        return String.join(",", paired);
    }

    private static IllegalArgumentException unixSocket(String url) {
        return new IllegalArgumentException("'" + withoutCredentials(url) + "' names a Unix socket (no host, or "
                + "host=/path), which the JDBC driver cannot open: give the server's TCP address, e.g. "
                + "postgresql://user:password@127.0.0.1:5432/database (listen_addresses and pg_hba.conf must allow it)");
    }

    private static String decode(String text) {
        return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** {@code jdbc:postgresql://host:port/db?user=u&password=p} → {@code postgresql://host:port/db}. */
    public static String withoutCredentials(String jdbcUrl) {
        String url = jdbcUrl.startsWith("jdbc:") ? jdbcUrl.substring("jdbc:".length()) : jdbcUrl;
        int query = url.indexOf('?');
        url = query < 0 ? url : url.substring(0, query);
        int scheme = url.indexOf("://");
        if (scheme < 0) {
            return url;
        }
        String authority = authority(url.substring(scheme + 3));
        int at = authority.lastIndexOf('@');
        return at < 0 ? url : url.substring(0, scheme + 3) + url.substring(scheme + 3 + at + 1);
    }

    static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
