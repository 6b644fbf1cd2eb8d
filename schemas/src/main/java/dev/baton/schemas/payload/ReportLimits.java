package dev.baton.schemas.payload;

import java.util.Optional;

import dev.baton.events.Failure;
import dev.baton.events.WorkerEvent;

/**
 * The sizes a worker's report may have: what the streams app's input validator dead-letters beyond,
 * and what a worker checks before it sends. One class for both, so a report the worker sends is
 * never one the streams app drops: a dead-lettered report loses its lease, the handler runs again,
 * and its caller ends up with {@code transport-exhausted} instead of the reason.
 */
public final class ReportLimits {

    /** The streams app's and the dispatch client's default {@code max.payload.bytes}. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 524_288;
    /** The largest {@code max.payload.bytes} the streams app accepts (960 KiB: a row and a task keep 64 KiB for the rest). */
    public static final int MAX_MAX_PAYLOAD_BYTES = 983_040;
    /** Ids (worker id, content types) are kept in a site's row and copied into outcomes and history. */
    public static final int MAX_ID_CHARS = 256;
    /** A report's reason, kept in the row and copied into outcomes and history. */
    public static final int MAX_REASON_CHARS = 8_192;
    /** One failure's stack text; {@code ActivityFailure} cuts a longer one to this. */
    public static final int MAX_STACK_CHARS = 8 * 1024;
    /** Causes below a failure; {@code ActivityFailure} cuts a longer chain here. */
    public static final int MAX_CAUSES = 8;

    private final int maxPayloadBytes;

    public ReportLimits(int maxPayloadBytes) {
        if (maxPayloadBytes < 0) {
            throw new IllegalArgumentException("max.payload.bytes must be >= 0, was " + maxPayloadBytes);
        }
        this.maxPayloadBytes = maxPayloadBytes;
    }

    /** The limits of a streams app running with the default {@code max.payload.bytes}. */
    public static ReportLimits defaults() {
        return new ReportLimits(DEFAULT_MAX_PAYLOAD_BYTES);
    }

    public int maxPayloadBytes() {
        return maxPayloadBytes;
    }

    /** What is too large in {@code event}, or empty: the sizes only (kinds, attempts and tokens are the validator's). */
    public Optional<String> problemWith(WorkerEvent event) {
        return textProblem("workerId", event.getWorkerId(), MAX_ID_CHARS)
                .or(() -> reasonProblem(event.getReason()))
                .or(() -> outputProblem(event.getOutput() == null ? 0 : event.getOutput().getData().remaining()))
                .or(() -> outputContentTypeProblem(event.getOutput() == null ? null : event.getOutput().getContentType()))
                .or(() -> heartbeatDetailsProblem(event.getHeartbeatDetails() == null ? 0 : event.getHeartbeatDetails().remaining()))
                .or(() -> textProblem("heartbeatContentType", event.getHeartbeatContentType(), MAX_ID_CHARS))
                .or(() -> failureProblem(event.getFailure()));
    }

    /** An output of {@code bytes} bytes over {@code max.payload.bytes}, or empty. */
    public Optional<String> outputProblem(int bytes) {
        if (bytes > maxPayloadBytes) {
            return Optional.of("output must be <= max.payload.bytes " + maxPayloadBytes + ", was " + bytes);
        }
        return Optional.empty();
    }

    /**
     * An output's content type over the bound every id has, or empty. It is kept in the row and copied into the outcome, as
     * an input's is (which the dispatch side bounds the same way); a custom converter may name any type (h/adv22w).
     */
    public Optional<String> outputContentTypeProblem(String contentType) {
        return textProblem("output.contentType", contentType, MAX_ID_CHARS);
    }

    public Optional<String> reasonProblem(String reason) {
        return textProblem("reason", reason, MAX_REASON_CHARS);
    }

    public Optional<String> heartbeatDetailsProblem(int bytes) {
        if (bytes > PayloadLimits.MAX_HEARTBEAT_DETAILS_BYTES) {
            return Optional.of("heartbeatDetails must be <= " + PayloadLimits.MAX_HEARTBEAT_DETAILS_BYTES + " bytes, was " + bytes);
        }
        return Optional.empty();
    }

    /** A failure is kept in the row for the dedupe window and copied into outcomes: bounded like a reason, per cause. */
    public Optional<String> failureProblem(Failure failure) {
        int depth = 0;
        for (Failure f = failure; f != null; f = f.getCause()) {
            if (++depth > MAX_CAUSES + 1) {
                return Optional.of("failure must have <= " + MAX_CAUSES + " causes, had more");
            }
            int details = f.getDetails() == null ? 0 : f.getDetails().getData().remaining();
            if (details > PayloadLimits.MAX_FAILURE_DETAILS_BYTES) {
                return Optional.of("failure.details must be <= " + PayloadLimits.MAX_FAILURE_DETAILS_BYTES + " bytes, was " + details);
            }
            Failure one = f;
            Optional<String> text = textProblem("failure.type", one.getType(), MAX_ID_CHARS)
                    .or(() -> textProblem("failure.details.contentType", one.getDetails() == null ? null : one.getDetails().getContentType(), MAX_ID_CHARS))
                    .or(() -> textProblem("failure.message", one.getMessage(), MAX_REASON_CHARS))
                    .or(() -> textProblem("failure.stack", one.getStack(), MAX_STACK_CHARS));
            if (text.isPresent()) {
                return text;
            }
        }
        return Optional.empty();
    }

    /** {@code reason} cut to {@link #MAX_REASON_CHARS}, marked as cut. */
    public static String trimReason(String reason) {
        return reason == null || reason.length() <= MAX_REASON_CHARS ? reason : reason.substring(0, MAX_REASON_CHARS - 3) + "...";
    }

    private static Optional<String> textProblem(String what, String text, int maxChars) {
        if (text != null && text.length() > maxChars) {
            return Optional.of(what + " must have <= " + maxChars + " characters, had " + text.length());
        }
        return Optional.empty();
    }
}
