package dev.baton.streams.processor;

import java.util.Arrays;
import java.util.Optional;

import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.Payload;
import dev.baton.events.RetryPolicy;
import dev.baton.events.Timeouts;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.SiteKey;
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
    /** A retry policy's non-retryable reason prefixes: kept in the row with the run, so bounded as its other fields. */
    static final int MAX_NON_RETRYABLE_PREFIXES = 64;

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
        return timing.isPresent() ? timing
                : cmd.getInput() == null ? Optional.empty() : textProblem("input.contentType", cmd.getInput().getContentType(), MAX_ID_CHARS);
    }

    /**
     * A requested dispatch's input over {@code max.payload.bytes}, or empty. Apart from {@link #problemWith(DispatchCommand)}
     * because the limit is configuration and may have been lowered since the site accepted this very request: a request
     * the site knows starts no run and stores no input, so it is decided by the site's rules, not refused (h/adv22s).
     */
    Optional<String> inputSizeProblem(DispatchCommand cmd) {
        return cmd.getKind() == DispatchKind.CANCEL ? Optional.empty() : payloadProblem("input", cmd.getInput());
    }

    /**
     * What is wrong with a record's key as a site key, or empty: each part at most {@value #MAX_ID_CHARS} characters, as
     * every other id (the key is in every record the site's decisions write, twice in some: a key of 600 KB made them
     * too large to send, and the stream thread died on that input again and again), and the key's bytes exactly the
     * UTF-8 of its parts (ill-formed bytes decode to other characters, and the site's row, task and reports would be
     * keyed by bytes the caller never sent).
     */
    Optional<String> problemWith(SiteKey site, byte[] key) {
        Optional<String> tooLong = textProblem("site key's namespace", site.namespace(), MAX_ID_CHARS)
                .or(() -> textProblem("site key's workflowId", site.workflowId(), MAX_ID_CHARS))
                .or(() -> textProblem("site key's activityId", site.activityId(), MAX_ID_CHARS));
        if (tooLong.isPresent()) {
            return tooLong;
        }
        if (!Arrays.equals(site.toBytes(), key)) {
            return Optional.of("site key must be well-formed UTF-8; its " + key.length + " bytes are not");
        }
        return Optional.empty();
    }

    /** Whether an answer can be addressed to this command's caller: a reply key and request id within bounds. */
    static boolean answerable(DispatchCommand cmd) {
        return !cmd.getReplyKey().isEmpty() && cmd.getReplyKey().length() <= MAX_ID_CHARS && cmd.getRequestId().length() <= MAX_ID_CHARS;
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
        if (p.getNonRetryableReasonPrefixes().size() > MAX_NON_RETRYABLE_PREFIXES) {
            return Optional.of("retryPolicy.nonRetryableReasonPrefixes must have <= " + MAX_NON_RETRYABLE_PREFIXES + " entries, had "
                    + p.getNonRetryableReasonPrefixes().size());
        }
        for (CharSequence prefix : p.getNonRetryableReasonPrefixes()) {
            Optional<String> tooLong = textProblem("retryPolicy.nonRetryableReasonPrefixes entry", prefix.toString(), MAX_ID_CHARS);
            if (tooLong.isPresent()) {
                return tooLong;
            }
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

    /** An output of {@code bytes} bytes over {@code max.payload.bytes}, or empty. */
    Optional<String> outputProblem(int bytes) {
        return reportLimits.outputProblem(bytes);
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
