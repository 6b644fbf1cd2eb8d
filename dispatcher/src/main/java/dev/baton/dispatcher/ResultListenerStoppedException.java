package dev.baton.dispatcher;

/**
 * The client's results listener stopped on an error that the consumer does not retry (an
 * authorization failure, a fatal consumer error): no outcome reaches this client any more. Every
 * waiting future fails with this exception, and so does every later {@code dispatch}, {@code send}
 * and {@code cancel}, and {@link DispatchClient#create} if it happens while starting. What to do:
 * close the client, fix the cause the message names, and create a new client with the same
 * {@code baton.client.id}. The activities keep running: their outcomes stay on {@code baton.results}
 * and reach that client's {@link UnmatchedResultHandler}.
 */
public class ResultListenerStoppedException extends DispatchException {

    public ResultListenerStoppedException(String clientId, Throwable cause, String requestId) {
        super("the results listener of client " + clientId + " stopped: " + describe(cause)
                + "; outcomes for its requests stay on baton.results and reach the UnmatchedResultHandler"
                + " of a new client with the same baton.client.id", requestId, cause);
    }

    private static String describe(Throwable cause) {
        String name = cause.getClass().getSimpleName();
        return cause.getMessage() == null ? name : name + ": " + cause.getMessage();
    }
}
