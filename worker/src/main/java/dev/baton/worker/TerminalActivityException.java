package dev.baton.worker;

/** The activity failed for good: reported as {@code terminal: <message>} and never retried. */
public class TerminalActivityException extends Exception {
    public TerminalActivityException(String message) {
        super(message);
    }

    public TerminalActivityException(String message, Throwable cause) {
        super(message, cause);
    }
}
