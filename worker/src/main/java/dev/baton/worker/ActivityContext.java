package dev.baton.worker;

import java.util.Optional;

import dev.baton.schemas.SiteKey;
import dev.baton.schemas.payload.EncodedPayload;

/** What a running activity knows about itself, and its line back to Baton. Thread-safe. */
public interface ActivityContext {

    SiteKey site();

    String activityType();

    /** The attempt being run (first = 1). Worker loss and parks re-deliver the same attempt. */
    int attempt();

    /** The delivery of this attempt; a transport loss or park starts a new one. */
    int generation();

    /** Stable per (site, runId) across attempts and generations: use it to deduplicate side effects. */
    String idempotencyKey();

    String workerId();

    /**
     * Records progress details (raw bytes); heartbeats are sent in batches every heartbeat window / 3
     * regardless. The last details sent are the run's checkpoint: a later generation or attempt of the
     * same run reads them with {@link #lastHeartbeatDetails()}. Details recorded after the last batch
     * left are lost with the worker.
     */
    void heartbeat(byte[] details);

    /** As {@link #heartbeat(byte[])}, with details encoded by the worker's payload converters (JSON by default). */
    void heartbeat(Object details);

    /**
     * The details of the last heartbeat an earlier generation or attempt of this run sent, with their
     * content type; empty on a run's first delivery or if it never sent any. Resume from here.
     */
    Optional<EncodedPayload> lastHeartbeatDetails();

    /** {@link #lastHeartbeatDetails()} read as {@code type} by the worker's payload converters. */
    <T> Optional<T> lastHeartbeatDetails(Class<T> type);

    /**
     * Asks to complete this generation later: when the handler returns, its return value is ignored
     * and nothing is reported; the returned handle (or {@link ActivityCompletionClient} with its token,
     * from another process) completes or fails it, and must heartbeat it meanwhile. A handler that
     * throws after asking still fails the generation.
     *
     * @throws IllegalStateException when the context cannot hand its generation off (a test context without a line to Baton)
     */
    AsyncCompletion completeLater();

    /** True once Baton took the activity away (superseded, cancelled, timed out) or the worker is draining it. */
    boolean isCancelled();
}
