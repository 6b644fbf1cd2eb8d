package dev.baton.worker;

/**
 * Baton told the holder of a generation to stop it (cancelled, superseded, timed out, lost): its
 * reports will be refused, so the work can stop. Thrown by
 * {@link ActivityCompletionClient#heartbeat(String, Object)} once a stop for that generation reached
 * the client, as Temporal's activity heartbeat reports a cancellation. Nothing was sent.
 */
public class ActivityStoppedException extends IllegalStateException {

    private final transient CompletionRef ref;

    public ActivityStoppedException(CompletionRef ref) {
        super("Baton stopped " + ref + ": its reports are refused; stop the work");
        this.ref = ref;
    }

    /** The stopped generation (its {@code toString()} never shows the token). */
    public CompletionRef ref() {
        return ref;
    }
}
