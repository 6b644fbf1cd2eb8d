package dev.baton.morsel.node;

/**
 * An engine step this node cannot run: written in another version of the job protocol, or not a
 * step at all. Retrying cannot help, so the activity fails terminally with this message.
 */
public class JobProtocolException extends IllegalArgumentException {

    public JobProtocolException(String message) {
        super(message);
    }

    public JobProtocolException(String message, Throwable cause) {
        super(message, cause);
    }
}
