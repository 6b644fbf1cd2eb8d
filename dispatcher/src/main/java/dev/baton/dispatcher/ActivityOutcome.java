package dev.baton.dispatcher;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.schemas.Reasons;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.failure.ActivityFailure;
import dev.baton.schemas.payload.EncodedPayload;
import dev.baton.schemas.payload.PayloadConverters;

/**
 * The one outcome of an attempt, as a caller sees it.
 *
 * @param completed true when the activity completed; false when it failed, with {@code reason}
 * @param output the activity's output bytes (empty when it has none)
 * @param reason for a failure, the reason with its vocabulary prefix ({@link Reasons})
 * @param unmatched true for a completion that matched no live site (delivered to the outbox)
 * @param failure for a failure a worker reported, what it threw: type, message, details, stack and
 *                causes; null for a completion and for failures Baton decided (timeouts, cancels, ...)
 */
public record ActivityOutcome(SiteKey site, String requestId, int attempt, boolean completed, byte[] output, String contentType,
                      String reason, String workerId, boolean unmatched, ActivityFailure failure) {

    /** An outcome without a structured failure. */
    public ActivityOutcome(SiteKey site, String requestId, int attempt, boolean completed, byte[] output, String contentType, String reason,
                   String workerId, boolean unmatched) {
        this(site, requestId, attempt, completed, output, contentType, reason, workerId, unmatched, null);
    }

    public static ActivityOutcome of(Outcome event) {
        byte[] output = new byte[0];
        String contentType = null;
        if (event.getOutput() != null) {
            ByteBuffer data = event.getOutput().getData().duplicate();
            output = new byte[data.remaining()];
            data.get(output);
            contentType = event.getOutput().getContentType();
        }
        return new ActivityOutcome(SiteKey.of(event.getSite()), event.getRequestId(), event.getAttempt(),
                event.getStatus() == OutcomeStatus.COMPLETED, output, contentType, event.getReason(),
                event.getWorkerId(), event.getUnmatched(), ActivityFailure.of(event.getFailure()));
    }

    /** The vocabulary prefix of a failure's reason ({@code "retryable:"}, ...), empty for a completion. */
    public String reasonPrefix() {
        return completed ? "" : Reasons.prefixOf(reason);
    }

    /**
     * The output read as {@code type} by the converter of its content type (the default converters:
     * JSON, single-object Avro, raw bytes).
     *
     * @throws IllegalStateException if the outcome is a failure (it has no output)
     * @throws dev.baton.schemas.payload.PayloadConversionException if the output cannot be read as {@code type}
     */
    public <T> T outputAs(Class<T> type) {
        return outputAs(type, PayloadConverters.defaults());
    }

    /** As {@link #outputAs(Class)}, with {@code converters}. */
    public <T> T outputAs(Class<T> type, PayloadConverters converters) {
        if (!completed) {
            throw new IllegalStateException("a failed outcome has no output; its reason: " + reason);
        }
        return converters.decode(new EncodedPayload(output, contentType), type);
    }

    /**
     * What made the outcome a failure: the worker's {@link #failure()} when it reported one, otherwise
     * one made from the reason, typed by its prefix without the colon ({@code "cancelled"},
     * {@code "unavailable"}, ...). Empty for a completion.
     */
    public Optional<ActivityFailure> failureOrReason() {
        if (completed) {
            return Optional.empty();
        }
        if (failure != null) {
            return Optional.of(failure);
        }
        String prefix = reasonPrefix();
        return Optional.of(ActivityFailure.of(prefix.isEmpty() ? "failed" : prefix.substring(0, prefix.length() - 1),
                reason == null ? "" : reason));
    }

    public String outputAsString() {
        return new String(output, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "ActivityOutcome[" + site + " attempt " + attempt + (completed ? " completed, " + output.length + " bytes" : " failed: " + reason
                + (failure == null ? "" : " (" + failure.type() + ")"))
                + (unmatched ? ", unmatched" : "") + "]";
    }
}
