package dev.baton.dispatcher;

import org.apache.kafka.common.KafkaException;

/** Base of the dispatcher's failures; carries the request it concerns when there is one. */
public class DispatchException extends KafkaException {

    private final String requestId;

    public DispatchException(String message, String requestId) {
        super(message);
        this.requestId = requestId;
    }

    public DispatchException(String message, String requestId, Throwable cause) {
        super(message, cause);
        this.requestId = requestId;
    }

    public String requestId() {
        return requestId;
    }
}
