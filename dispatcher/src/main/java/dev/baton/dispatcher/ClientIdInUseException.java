package dev.baton.dispatcher;

/**
 * {@link DispatchClient#create} refused: another live client holds this {@code baton.client.id}. Two live
 * clients with one id would both read its results, hand each other's outcomes to their
 * {@link UnmatchedResultHandler}s and move one shared results position (DESIGN §6: each client instance
 * has its own stable id). A user error, not a system one: give this client another id, or close the
 * other first. A client killed without {@code close()} holds its id until its group membership lapses
 * (the broker's {@code group.consumer.session.timeout.ms}, 45 s by default); {@code create} waits that
 * long ({@code client.id.wait.ms}) before it throws this.
 */
public class ClientIdInUseException extends DispatchException {

    private final String clientId;

    public ClientIdInUseException(String clientId, String message, Throwable cause) {
        super(message, null, cause);
        this.clientId = clientId;
    }

    /** The {@code baton.client.id} another live client holds. */
    public String clientId() {
        return clientId;
    }
}
