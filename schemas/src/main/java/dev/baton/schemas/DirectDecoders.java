package dev.baton.schemas;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import dev.baton.events.ActivityTask;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.Failure;
import dev.baton.events.HistoryEvent;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.Payload;
import dev.baton.events.RetryPolicy;
import dev.baton.events.SiteRef;
import dev.baton.events.Timeouts;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.events.store.PreviousRun;
import dev.baton.events.store.Refusal;
import dev.baton.events.store.SiteState;
import dev.baton.events.store.SiteStatus;
import dev.baton.events.store.Superseded;
import dev.baton.events.store.Waiter;
import org.apache.avro.specific.SpecificRecord;

/**
 * Decoders written out by hand for the records read for every activity (the streams app's inputs and a site's row, the
 * worker's task, the client's outcome), used by {@link EventSerde} only when the writer's schema is the class's own (any
 * other goes through Avro's resolving reader). Avro's reader walks a plan of field setters, reads each string into its
 * {@code Utf8} and copies it into a {@code String}; these read the fields in schema order straight from the array
 * ({@link BodyReader}), ~3x faster (docs/decisions.md, "The streams app's inputs decoded by hand").
 * {@code DirectDecodersProperties} holds them to Avro's result, record by record, for valid, random and damaged bodies:
 * a field added to a schema and not here fails it.
 */
final class DirectDecoders {

    private static final int MAX_FAILURE_DEPTH = EventSerde.MAX_FAILURE_DEPTH;

    private static final DispatchKind[] DISPATCH_KINDS = DispatchKind.values();
    private static final WorkerEventKind[] WORKER_EVENT_KINDS = WorkerEventKind.values();
    private static final OutcomeStatus[] OUTCOME_STATUSES = OutcomeStatus.values();
    private static final SiteStatus[] SITE_STATUSES = SiteStatus.values();
    /** The fewest bytes an item takes, as Avro counts it before reading an array's block (a varint or a string's length each). */
    private static final int WAITER_BYTES = 2;
    private static final int PREVIOUS_RUN_BYTES = 6;
    private static final int REFUSAL_BYTES = 3;

    /** Reads one record (or one array item) of its class's own schema; throws as {@link BodyReader} does. */
    interface Decoder<T> {
        T read(BodyReader in) throws IOException;
    }

    private DirectDecoders() {
    }

    /** The hand-written decoder of {@code type}, or {@code null} if it has none. */
    @SuppressWarnings("unchecked")
    static <T extends SpecificRecord> Decoder<T> of(Class<T> type) {
        if (type == DispatchCommand.class) {
            return in -> (T) dispatchCommand(in);
        }
        if (type == WorkerEvent.class) {
            return in -> (T) workerEvent(in);
        }
        if (type == ActivityTask.class) {
            return in -> (T) activityTask(in);
        }
        if (type == Outcome.class) {
            return in -> (T) outcome(in);
        }
        if (type == SiteState.class) {
            return in -> (T) siteState(in);
        }
        return null;
    }

    static DispatchCommand dispatchCommand(BodyReader in) throws IOException {
        DispatchKind kind = in.readEnum(DISPATCH_KINDS);
        SiteRef site = siteRef(in);
        String requestId = in.readString();
        String replyKey = in.readString();
        int attempt = in.readInt();
        String runId = in.readString();
        String idempotencyKey = in.readString();
        String queue = in.readString();
        String activityType = in.readString();
        String node = in.readPresent() ? in.readString() : null;
        Payload input = in.readPresent() ? payload(in) : null;
        RetryPolicy retryPolicy = in.readPresent() ? retryPolicy(in) : null;
        Timeouts timeouts = in.readPresent() ? timeouts(in) : null;
        long requestedAtMillis = in.readLong();
        return new DispatchCommand(kind, site, requestId, replyKey, attempt, runId, idempotencyKey, queue, activityType, node, input,
                retryPolicy, timeouts, requestedAtMillis);
    }

    static WorkerEvent workerEvent(BodyReader in) throws IOException {
        WorkerEventKind kind = in.readEnum(WORKER_EVENT_KINDS);
        SiteRef site = siteRef(in);
        int attempt = in.readInt();
        int generation = in.readInt();
        String token = in.readString();
        String workerId = in.readString();
        Payload output = in.readPresent() ? payload(in) : null;
        String reason = in.readPresent() ? in.readString() : null;
        ByteBuffer heartbeatDetails = in.readPresent() ? in.readBytes() : null;
        long atMillis = in.readLong();
        Failure failure = in.readPresent() ? failure(in, 1) : null;
        String heartbeatContentType = in.readPresent() ? in.readString() : null;
        return new WorkerEvent(kind, site, attempt, generation, token, workerId, output, reason, heartbeatDetails, atMillis, failure,
                heartbeatContentType);
    }

    static ActivityTask activityTask(BodyReader in) throws IOException {
        SiteRef site = siteRef(in);
        int attempt = in.readInt();
        int generation = in.readInt();
        String token = in.readString();
        String idempotencyKey = in.readString();
        String queue = in.readString();
        String activityType = in.readString();
        String node = in.readPresent() ? in.readString() : null;
        Payload input = in.readPresent() ? payload(in) : null;
        Long heartbeatWindowMillis = in.readPresent() ? in.readLong() : null;
        Long startToCloseMillis = in.readPresent() ? in.readLong() : null;
        long scheduledAtMillis = in.readLong();
        Long deadlineMillis = in.readPresent() ? in.readLong() : null;
        Payload lastHeartbeatDetails = in.readPresent() ? payload(in) : null;
        String stopTokenFingerprint = in.readPresent() ? in.readString() : null;
        return new ActivityTask(site, attempt, generation, token, idempotencyKey, queue, activityType, node, input, heartbeatWindowMillis,
                startToCloseMillis, scheduledAtMillis, deadlineMillis, lastHeartbeatDetails, stopTokenFingerprint);
    }

    static Outcome outcome(BodyReader in) throws IOException {
        OutcomeStatus status = in.readEnum(OUTCOME_STATUSES);
        SiteRef site = siteRef(in);
        String requestId = in.readString();
        String replyKey = in.readString();
        int attempt = in.readInt();
        Payload output = in.readPresent() ? payload(in) : null;
        String reason = in.readPresent() ? in.readString() : null;
        boolean unmatched = in.readBoolean();
        String workerId = in.readPresent() ? in.readString() : null;
        long atMillis = in.readLong();
        Failure failure = in.readPresent() ? failure(in, 1) : null;
        return new Outcome(status, site, requestId, replyKey, attempt, output, reason, unmatched, workerId, atMillis, failure);
    }

    /** A site's row: read for every worker report whose row is no longer in the site store's decoded cache. */
    static SiteState siteState(BodyReader in) throws IOException {
        SiteStatus state = in.readEnum(SITE_STATUSES);
        int attempt = in.readInt();
        int generation = in.readInt();
        String requestId = in.readString();
        String replyKey = in.readString();
        String runId = in.readString();
        String idempotencyKey = in.readString();
        String queue = in.readString();
        String activityType = in.readString();
        String node = in.readPresent() ? in.readString() : null;
        Payload input = in.readPresent() ? payload(in) : null;
        RetryPolicy retryPolicy = in.readPresent() ? retryPolicy(in) : null;
        Timeouts timeouts = in.readPresent() ? timeouts(in) : null;
        String workerId = in.readPresent() ? in.readString() : null;
        int transportLosses = in.readInt();
        long createdAtMillis = in.readLong();
        long firstRequestedAtMillis = in.readLong();
        Map<String, Long> deadlines = in.readLongMap();
        Map<String, Long> deadlineInputs = in.readLongMap();
        OutcomeStatus outcomeStatus = in.readPresent() ? in.readEnum(OUTCOME_STATUSES) : null;
        Payload outcomeOutput = in.readPresent() ? payload(in) : null;
        String outcomeReason = in.readPresent() ? in.readString() : null;
        String resolvedToken = in.readPresent() ? in.readString() : null;
        List<Waiter> waiters = in.readArray(WAITER_BYTES, DirectDecoders::waiter);
        String token = in.readPresent() ? in.readString() : null;
        ByteBuffer tokenSecret = in.readPresent() ? in.readBytes() : null;
        int callerAttempt = in.readInt();
        Superseded superseded = in.readPresent() ? superseded(in) : null;
        long dispatchOffset = in.readLong();
        long eventsOffset = in.readLong();
        PreviousRun previousRun = in.readPresent() ? previousRun(in) : null;
        Failure outcomeFailure = in.readPresent() ? failure(in, 1) : null;
        Payload heartbeatDetails = in.readPresent() ? payload(in) : null;
        List<PreviousRun> earlierRuns = in.readArray(PREVIOUS_RUN_BYTES, DirectDecoders::previousRun);
        List<Refusal> refusals = in.readArray(REFUSAL_BYTES, DirectDecoders::refusal);
        return new SiteState(state, attempt, generation, requestId, replyKey, runId, idempotencyKey, queue, activityType, node, input,
                retryPolicy, timeouts, workerId, transportLosses, createdAtMillis, firstRequestedAtMillis, deadlines, deadlineInputs,
                outcomeStatus, outcomeOutput, outcomeReason, resolvedToken, waiters, token, tokenSecret, callerAttempt, superseded,
                dispatchOffset, eventsOffset, previousRun, outcomeFailure, heartbeatDetails, earlierRuns, refusals);
    }

    private static Waiter waiter(BodyReader in) throws IOException {
        return new Waiter(in.readString(), in.readString());
    }

    private static Superseded superseded(BodyReader in) throws IOException {
        int attempt = in.readInt();
        int byAttempt = in.readInt();
        return new Superseded(attempt, byAttempt, in.readArray(WAITER_BYTES, DirectDecoders::waiter));
    }

    private static PreviousRun previousRun(BodyReader in) throws IOException {
        int attempt = in.readInt();
        OutcomeStatus status = in.readEnum(OUTCOME_STATUSES);
        String reason = in.readPresent() ? in.readString() : null;
        Payload output = in.readPresent() ? payload(in) : null;
        List<Waiter> callers = in.readArray(WAITER_BYTES, DirectDecoders::waiter);
        Failure failure = in.readPresent() ? failure(in, 1) : null;
        return new PreviousRun(attempt, status, reason, output, callers, failure);
    }

    private static Refusal refusal(BodyReader in) throws IOException {
        String requestId = in.readString();
        int attempt = in.readInt();
        return new Refusal(requestId, attempt, in.readString());
    }

    /** The fewest bytes an item of the row's arrays takes, as checked before reading a block (tests compare it with Avro's). */
    static int minItemBytes(Class<?> item) {
        return item == Waiter.class ? WAITER_BYTES : item == PreviousRun.class ? PREVIOUS_RUN_BYTES : item == Refusal.class ? REFUSAL_BYTES : 1;
    }

    /** Refuses a record read by Avro's reader whose failures nest deeper than {@link EventSerde#MAX_FAILURE_DEPTH}. */
    static void requireFailureDepth(Object value) throws IOException {
        if (value instanceof WorkerEvent e) {
            requireDepth(e.getFailure());
        } else if (value instanceof Outcome o) {
            requireDepth(o.getFailure());
        } else if (value instanceof HistoryEvent h) {
            requireDepth(h.getFailure());
        } else if (value instanceof SiteState row) {
            requireDepth(row.getOutcomeFailure());
            if (row.getPreviousRun() != null) {
                requireDepth(row.getPreviousRun().getFailure());
            }
            for (PreviousRun run : row.getEarlierRuns()) {
                requireDepth(run.getFailure());
            }
        }
    }

    private static void requireDepth(Failure failure) throws IOException {
        int depth = 0;
        for (Failure f = failure; f != null; f = f.getCause()) {
            if (++depth > MAX_FAILURE_DEPTH) {
                throw new IOException("a failure's causes nest deeper than " + MAX_FAILURE_DEPTH);
            }
        }
    }

    private static SiteRef siteRef(BodyReader in) throws IOException {
        return new SiteRef(in.readString(), in.readString(), in.readString());
    }

    private static Payload payload(BodyReader in) throws IOException {
        return new Payload(in.readBytes(), in.readString());
    }

    private static RetryPolicy retryPolicy(BodyReader in) throws IOException {
        long initialIntervalMillis = in.readLong();
        double backoffCoefficient = in.readDouble();
        long maxIntervalMillis = in.readLong();
        int maxAttempts = in.readInt();
        return new RetryPolicy(initialIntervalMillis, backoffCoefficient, maxIntervalMillis, maxAttempts, in.readStrings());
    }

    private static Timeouts timeouts(BodyReader in) throws IOException {
        Long scheduleToStart = in.readPresent() ? in.readLong() : null;
        Long startToClose = in.readPresent() ? in.readLong() : null;
        Long scheduleToClose = in.readPresent() ? in.readLong() : null;
        Long heartbeat = in.readPresent() ? in.readLong() : null;
        return new Timeouts(scheduleToStart, startToClose, scheduleToClose, heartbeat);
    }

    private static Failure failure(BodyReader in, int depth) throws IOException {
        if (depth > MAX_FAILURE_DEPTH) {
            throw new IOException("a failure's causes nest deeper than " + MAX_FAILURE_DEPTH);
        }
        String type = in.readString();
        String message = in.readString();
        Payload details = in.readPresent() ? payload(in) : null;
        String stack = in.readString();
        Failure cause = in.readPresent() ? failure(in, depth + 1) : null;
        return new Failure(type, message, details, stack, cause);
    }
}
