package dev.baton.dispatcher;

import org.apache.kafka.common.errors.RetriableException;

/** Too many dispatches are waiting for outcomes ({@code max.pending}); retry once some resolve. */
public class PendingLimitExceededException extends RetriableException {
    public PendingLimitExceededException(String message) {
        super(message);
    }
}
