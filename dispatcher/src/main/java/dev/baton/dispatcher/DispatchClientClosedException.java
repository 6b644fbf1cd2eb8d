package dev.baton.dispatcher;

/**
 * The client closed before this request's outcome arrived. The activity was not cancelled: its
 * outcome will reach the {@link UnmatchedResultHandler} of the next client with the same clientId.
 */
public class DispatchClientClosedException extends DispatchException {
    public DispatchClientClosedException(String message, String requestId) {
        super(message, requestId);
    }
}
