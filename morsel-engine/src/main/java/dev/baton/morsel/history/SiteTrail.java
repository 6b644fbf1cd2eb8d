package dev.baton.morsel.history;

import dev.baton.events.HistoryKind;

/**
 * What history says about one site: its latest dispatch (request, attempt, queue, type), its first
 * dispatch time and its latest event's kind. All events of a site sit in one partition, so "latest"
 * means highest offset; {@link SiteQueries} computes these as an aggregate's ARG_MAX and MIN.
 */
public final class SiteTrail {

    final String siteKey;
    String requestId;
    int attempt;
    String queue;
    String activityType;
    long firstDispatchAt = Long.MAX_VALUE;
    HistoryKind lastKind;

    SiteTrail(String siteKey) {
        this.siteKey = siteKey;
    }

    public String siteKey() {
        return siteKey;
    }

    public String requestId() {
        return requestId;
    }

    public int attempt() {
        return attempt;
    }

    public String queue() {
        return queue;
    }

    boolean dispatched() {
        return requestId != null;
    }

    /** Parked by a draining worker and not leased, resolved or re-dispatched since. */
    boolean parked() {
        return lastKind == HistoryKind.PARKED;
    }
}
