package dev.baton.testkit.activity;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.payload.EncodedPayload;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.schemas.payload.PayloadLimits;
import dev.baton.worker.ActivityContext;
import dev.baton.worker.AsyncCompletion;
import dev.baton.worker.CompletionRef;

/**
 * An {@link ActivityContext} for calling a handler directly in a unit test: no broker, no worker.
 * It records every heartbeat, gives the handler the checkpoint the test set, and — if the handler
 * asks to complete later — records what its handle reports.
 *
 * <pre>{@code
 * TestActivityContext ctx = TestActivityContext.builder().attempt(2).lastHeartbeatDetails(new Progress(40)).build();
 * Receipt r = handler.handle(ctx, new Charge(1200));
 * assertThat(ctx.heartbeats(Progress.class)).last().isEqualTo(new Progress(100));
 * }</pre>
 *
 * Values are encoded and decoded by the payload converters, as on a worker, so a handler that only
 * works with what its converters can write fails here too. Thread-safe.
 */
public final class TestActivityContext implements ActivityContext {

    private final SiteKey site;
    private final String activityType;
    private final int attempt;
    private final int generation;
    private final String idempotencyKey;
    private final String workerId;
    private final EncodedPayload lastHeartbeatDetails;
    private final PayloadConverters converters;
    private final CompletionRef ref;
    private final List<EncodedPayload> heartbeats = new ArrayList<>();
    private final List<Report> reports = new ArrayList<>();
    private volatile boolean cancelled;
    private volatile boolean completesLater;

    /** What an async completion reported: a result, a failure or a heartbeat. */
    public record Report(String kind, EncodedPayload payload, Throwable failure) {
    }

    private TestActivityContext(Builder b) {
        this.site = b.site;
        this.activityType = b.activityType;
        this.attempt = b.attempt;
        this.generation = b.generation;
        this.idempotencyKey = b.idempotencyKey;
        this.workerId = b.workerId;
        this.converters = b.converters;
        this.lastHeartbeatDetails = b.lastDetails == null ? null
                : b.lastDetails instanceof EncodedPayload p ? p : converters.encode(b.lastDetails);
        this.ref = new CompletionRef(site, attempt, generation, CompletionToken.random().value());
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public SiteKey site() {
        return site;
    }

    @Override
    public String activityType() {
        return activityType;
    }

    @Override
    public int attempt() {
        return attempt;
    }

    @Override
    public int generation() {
        return generation;
    }

    @Override
    public String idempotencyKey() {
        return idempotencyKey;
    }

    @Override
    public String workerId() {
        return workerId;
    }

    @Override
    public void heartbeat(byte[] details) {
        record(details == null ? null : EncodedPayload.octetStream(details.clone()));
    }

    @Override
    public void heartbeat(Object details) {
        record(details == null ? null : converters.encode(details));
    }

    private void record(EncodedPayload details) {
        // As a worker's context: refused at the handler's call, so a handler that fails on a worker fails here too (h/adv22w).
        if (details != null && details.data().length > PayloadLimits.MAX_HEARTBEAT_DETAILS_BYTES) {
            throw new IllegalArgumentException("heartbeat details must be <= " + PayloadLimits.MAX_HEARTBEAT_DETAILS_BYTES
                    + " bytes, were " + details.data().length);
        }
        synchronized (heartbeats) {
            heartbeats.add(details);
        }
    }

    @Override
    public Optional<EncodedPayload> lastHeartbeatDetails() {
        return Optional.ofNullable(lastHeartbeatDetails);
    }

    @Override
    public <T> Optional<T> lastHeartbeatDetails(Class<T> type) {
        return lastHeartbeatDetails().map(d -> converters.decode(d, type));
    }

    @Override
    public boolean isCancelled() {
        return cancelled;
    }

    /** As Baton taking the activity away: {@link #isCancelled()} turns true. */
    public void cancel() {
        cancelled = true;
    }

    /** The generation's reference as an {@code ActivityCompletionClient} would take it. */
    public String token() {
        return ref.render();
    }

    @Override
    public AsyncCompletion completeLater() {
        completesLater = true;
        return new RecordingCompletion();
    }

    /** Whether the handler asked to complete later. */
    public boolean completesLater() {
        return completesLater;
    }

    /** Every heartbeat's details in order (null entries for heartbeats without details). */
    public List<EncodedPayload> heartbeats() {
        synchronized (heartbeats) {
            return Collections.unmodifiableList(new ArrayList<>(heartbeats));
        }
    }

    /** The details of every heartbeat that carried some, read as {@code type}. */
    public <T> List<T> heartbeats(Class<T> type) {
        synchronized (heartbeats) {
            return heartbeats.stream().filter(Objects::nonNull).map(d -> converters.decode(d, type)).toList();
        }
    }

    /** What the async completion handle reported, in order. */
    public List<Report> asyncReports() {
        synchronized (reports) {
            return List.copyOf(reports);
        }
    }

    /** The first result or failure the async completion handle reported, if any yet. */
    public Optional<Report> asyncOutcome() {
        return asyncReports().stream().filter(r -> !r.kind().equals("heartbeat")).findFirst();
    }

    private final class RecordingCompletion implements AsyncCompletion {
        @Override
        public CompletionRef ref() {
            return ref;
        }

        @Override
        public CompletableFuture<Void> complete(Object result) {
            return add(new Report("completed", converters.encode(result), null));
        }

        @Override
        public CompletableFuture<Void> fail(Throwable failure) {
            return add(new Report("failed", null, Objects.requireNonNull(failure, "failure")));
        }

        @Override
        public CompletableFuture<Void> heartbeat(Object details) {
            return add(new Report("heartbeat", details == null ? null : converters.encode(details), null));
        }

        /** Stopped once the test cancelled the context ({@link TestActivityContext#cancel()}). */
        @Override
        public boolean isStopped() {
            return cancelled;
        }

        private CompletableFuture<Void> add(Report r) {
            synchronized (reports) {
                reports.add(r);
            }
            return CompletableFuture.completedFuture(null);
        }
    }

    /** Defaults: site {@code test/workflow/1}, activity type {@code test}, attempt and generation 1, no checkpoint. */
    public static final class Builder {
        private SiteKey site = new SiteKey("test", "workflow", "1");
        private String activityType = "test";
        private int attempt = 1;
        private int generation = 1;
        private String idempotencyKey = "test-idempotency-key";
        private String workerId = "test-worker";
        private Object lastDetails;
        private PayloadConverters converters = PayloadConverters.defaults();

        public Builder site(SiteKey site) {
            this.site = Objects.requireNonNull(site, "site");
            return this;
        }

        public Builder activityType(String type) {
            this.activityType = Objects.requireNonNull(type, "activityType");
            return this;
        }

        public Builder attempt(int attempt) {
            if (attempt < 1) {
                throw new IllegalArgumentException("attempt must be >= 1, was " + attempt);
            }
            this.attempt = attempt;
            return this;
        }

        public Builder generation(int generation) {
            if (generation < 1) {
                throw new IllegalArgumentException("generation must be >= 1, was " + generation);
            }
            this.generation = generation;
            return this;
        }

        public Builder idempotencyKey(String key) {
            this.idempotencyKey = Objects.requireNonNull(key, "idempotencyKey");
            return this;
        }

        public Builder workerId(String id) {
            this.workerId = Objects.requireNonNull(id, "workerId");
            return this;
        }

        /** The checkpoint an earlier generation left: a value (encoded by the converters), an {@link EncodedPayload} or {@code byte[]}. */
        public Builder lastHeartbeatDetails(Object details) {
            this.lastDetails = details;
            return this;
        }

        public Builder converters(PayloadConverters converters) {
            this.converters = Objects.requireNonNull(converters, "converters");
            return this;
        }

        public TestActivityContext build() {
            return new TestActivityContext(this);
        }
    }
}
