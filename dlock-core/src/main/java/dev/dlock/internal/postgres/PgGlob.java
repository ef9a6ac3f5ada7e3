package dev.dlock.internal.postgres;

/** Lock-name globs ({@code *}, {@code ?}, {@code [..]}, {@code \x}) as PostgreSQL regular expressions. */
final class PgGlob {

    private PgGlob() {
    }

    static String toRegex(String glob) {
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char ch = glob.charAt(i);
            switch (ch) {
                case '*' -> regex.append(".*");
                case '?' -> regex.append('.');
                case '[' -> {
                    int end = glob.indexOf(']', i + 1);
                    if (end < 0) {
                        regex.append("\\[");
                    } else {
                        String set = glob.substring(i + 1, end).replace("\\", "\\\\");
                        regex.append('[').append(set.startsWith("^") ? "^" + set.substring(1) : set).append(']');
                        i = end;
                    }
                }
                case '\\' -> {
                    if (i + 1 < glob.length()) {
                        regex.append(quote(String.valueOf(glob.charAt(++i))));
                    } else {
                        regex.append("\\\\");
                    }
                }
                default -> regex.append(quote(String.valueOf(ch)));
            }
        }
        return regex.toString();
    }

    /** The text as a regular expression that matches it literally. */
    static String quote(String text) {
        StringBuilder out = new StringBuilder();
        for (char ch : text.toCharArray()) {
            if ("\\.^$|?*+()[]{}".indexOf(ch) >= 0) {
                out.append('\\');
            }
            out.append(ch);
        }
        return out.toString();
    }
}
