package dev.baton.streams.processor;

import java.util.Optional;

import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.Payload;
import dev.baton.events.RetryPolicy;
import dev.baton.events.Timeouts;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.payload.ReportLimits;
import dev.baton.topics.BatonTopics;

/**
 * Checks decoded inputs for values no rule should see (negative attempts, empty ids, oversized
 * payloads, malformed tokens). A record that fails is dead-lettered with the returned reason and
 * never touches a site: a malformed completion cannot consume the current generation.
 */
final class InputValidator {

    /** The longest timeout or retry interval accepted: 10 years, far from where now + it would overflow. */
    static final long MAX_DURATION_MS = 10L * 365 * 24 * 3600 * 1000;
    static final int MAX_ID_CHARS = ReportLimits.MAX_ID_CHARS;

    private final int maxPayloadBytes;
    /** A worker's report: the same limits its worker checks before sending ({@code EventSender}). */
    private final ReportLimits reportLimits;

    InputValidator(int maxPayloadBytes) {
        this.maxPayloadBytes = maxPayloadBytes;
        this.reportLimits = new ReportLimits(maxPayloadBytes);
    }

    Optional<String> problemWith(DispatchCommand cmd) {
        if (cmd.getKind() == null || cmd.getKind() == DispatchKind.UNKNOWN) {
            return Optional.of("dispatch kind is unknown to this version");
        }
        if (cmd.getRequestId().isEmpty()) {
            return Optional.of("requestId must not be empty");
        }
        Optional<String> tooLong = textProblem("requestId", cmd.getRequestId(), MAX_ID_CHARS)
                .or(() -> textProblem("replyKey", cmd.getReplyKey(), MAX_ID_CHARS))
                .or(() -> textProblem("runId", cmd.getRunId(), MAX_ID_CHARS))
                .or(() -> textProblem("idempotencyKey", cmd.getIdempotencyKey(), MAX_ID_CHARS))
                .or(() -> textProblem("activityType", cmd.getActivityType(), MAX_ID_CHARS));
        if (tooLong.isPresent()) {
            return tooLong;
        }
        if (cmd.getKind() == DispatchKind.CANCEL) {
            return Optional.empty();
        }
        if (cmd.getAttempt() < 1) {
            return Optional.of("attempt must be >= 1, was " + cmd.getAttempt());
        }
        if (!BatonTopics.isValidQueueName(cmd.getQueue())) {
            return Optional.of("queue must be a valid queue name, was '" + cmd.getQueue() + "'");
        }
        if (cmd.getNode() != null && !BatonTopics.isValidQueueName(cmd.getNode())) {
            return Optional.of("node must be a valid node label, was '" + cmd.getNode() + "'");
        }
        if (cmd.getActivityType().isEmpty()) {
            return Optional.of("activityType must not be empty");
        }
        Optional<String> timing = timeoutsProblem(cmd.getTimeouts()).or(() -> retryProblem(cmd.getRetryPolicy()));
        return timing.isPresent() ? timing : payloadProblem("input", cmd.getInput());
    }

    /** Each timeout set must be in (0, MAX_DURATION_MS]: deadlines are instants, and now + Long.MAX_VALUE wraps around. */
    private static Optional<String> timeoutsProblem(Timeouts t) {
        if (t == null) {
            return Optional.empty();
        }
        return durationProblem("timeouts.scheduleToStartMillis", t.getScheduleToStartMillis())
                .or(() -> durationProblem("timeouts.startToCloseMillis", t.getStartToCloseMillis()))
                .or(() -> durationProblem("timeouts.scheduleToCloseMillis", t.getScheduleToCloseMillis()))
                .or(() -> durationProblem("timeouts.heartbeatMillis", t.getHeartbeatMillis()));
    }

    private static Optional<String> retryProblem(RetryPolicy p) {
        if (p == null) {
            return Optional.empty();
        }
        if (!(p.getBackoffCoefficient() >= 1.0) || Double.isInfinite(p.getBackoffCoefficient())) {
            return Optional.of("retryPolicy.backoffCoefficient must be a finite number >= 1, was " + p.getBackoffCoefficient());
        }
        if (p.getMaxAttempts() < 0) {
            return Optional.of("retryPolicy.maxAttempts must be >= 0, was " + p.getMaxAttempts());
        }
        return durationProblem("retryPolicy.initialIntervalMillis", p.getInitialIntervalMillis())
                .or(() -> durationProblem("retryPolicy.maxIntervalMillis", p.getMaxIntervalMillis()));
    }

    private static Optional<String> durationProblem(String what, Long millis) {
        if (millis != null && (millis <= 0 || millis > MAX_DURATION_MS)) {
            return Optional.of(what + " must be > 0 and <= " + MAX_DURATION_MS + " (10 years), was " + millis);
        }
        return Optional.empty();
    }

    Optional<String> problemWith(WorkerEvent event) {
        if (event.getKind() == null || event.getKind() == WorkerEventKind.UNKNOWN) {
            return Optional.of("worker event kind is unknown to this version");
        }
        if (event.getAttempt() < 1 || event.getGeneration() < 1) {
            return Optional.of("attempt and generation must be >= 1, were " + event.getAttempt() + " and " + event.getGeneration());
        }
        if (event.getToken().length() != CompletionToken.LENGTH) {
            return Optional.of("token must have " + CompletionToken.LENGTH + " characters, had " + event.getToken().length());
        }
        if (event.getWorkerId().isEmpty()) {
            return Optional.of("workerId must not be empty");
        }
        return reportLimits.problemWith(event);
    }

    /** Ids and reasons are kept in a site's row (up to 65 callers) and copied into outcomes and history: bounded, so a row fits a record. */
    private static Optional<String> textProblem(String what, String text, int maxChars) {
        if (text != null && text.length() > maxChars) {
            return Optional.of(what + " must have <= " + maxChars + " characters, had " + text.length());
        }
        return Optional.empty();
    }

    private Optional<String> payloadProblem(String what, Payload payload) {
        if (payload != null && payload.getData().remaining() > maxPayloadBytes) {
            return Optional.of(what + " must be <= max.payload.bytes " + maxPayloadBytes + ", was " + payload.getData().remaining());
        }
        return Optional.empty();
    }
}
