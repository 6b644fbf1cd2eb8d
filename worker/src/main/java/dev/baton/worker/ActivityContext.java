package dev.baton.worker;

import dev.baton.schemas.SiteKey;

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

    /** Records progress details; heartbeats are sent in batches every heartbeat window / 3 regardless. */
    void heartbeat(byte[] details);

    /** True once Baton took the activity away (superseded, cancelled, timed out) or the worker is draining it. */
    boolean isCancelled();
}
