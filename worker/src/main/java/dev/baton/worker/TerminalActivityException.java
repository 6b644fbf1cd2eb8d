package dev.baton.worker;

/** The activity failed for good: reported as {@code terminal: <message>} and never retried. */
public class TerminalActivityException extends ActivityException {
    public TerminalActivityException(String message) {
        super(null, message, null, null);
    }

    public TerminalActivityException(String message, Throwable cause) {
        super(null, message, null, cause);
    }

    /** With the failure's type and details for the caller (see {@link ActivityException}). */
    public TerminalActivityException(String type, String message, Object details) {
        super(type, message, details, null);
    }

    public TerminalActivityException(String type, String message, Object details, Throwable cause) {
        super(type, message, details, cause);
    }
}
