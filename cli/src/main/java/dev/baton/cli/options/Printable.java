package dev.baton.cli.options;

/**
 * Text from Baton's logs made safe for a table on a terminal. Site keys, request ids, reasons and the like are written by
 * dispatchers and workers and may hold any character: a newline would forge a row, an escape sequence move the cursor and
 * erase rows. Control characters (C0, DEL, C1), line and paragraph separators and bidirectional overrides are printed as
 * {@code \}{@code uXXXX}, and a backslash as two, so the escaped form cannot be mistaken for the text. JSON output needs
 * none of this: Jackson escapes control characters itself.
 */
public final class Printable {

    private Printable() {
    }

    /** {@code value} as printable text; null as {@code "-"}. */
    public static String of(Object value) {
        if (value == null) {
            return "-";
        }
        String s = value.toString();
        int i = 0;
        while (i < s.length() && !unsafe(s.charAt(i)) && s.charAt(i) != '\\') {
            i++;
        }
        if (i == s.length()) {
            return s;
        }
        StringBuilder out = new StringBuilder(s.length() + 16).append(s, 0, i);
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\') {
                out.append("\\\\");
            } else if (unsafe(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean unsafe(char c) {
        return Character.isISOControl(c) || c == '\u2028' || c == '\u2029' || (c >= '\u202a' && c <= '\u202e')
                || (c >= '\u2066' && c <= '\u2069') || c == '\u200e' || c == '\u200f' || c == '\u061c';
    }
}
