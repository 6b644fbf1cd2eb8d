package dev.baton.schemas.payload;

/**
 * A value that cannot be written, or bytes that cannot be read as the type asked for. Not retriable:
 * the same bytes will never read differently, so a worker fails such an activity {@code terminal:}.
 */
public class PayloadConversionException extends RuntimeException {

    public PayloadConversionException(String message) {
        super(message);
    }

    public PayloadConversionException(String message, Throwable cause) {
        super(message, cause);
    }
}
