package dev.baton.morsel.history;

import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;

/**
 * What history says about one site, folded from its events in any order: all events of a site sit
 * in one partition, so "latest" means highest offset. Mergeable, so parallel scans can each fold a
 * part and combine.
 */
public final class SiteTrail {

    final String siteKey;
    final String namespace;
    final String workflowId;
    long dispatchOffset = -1;
    String requestId;
    int attempt;
    String queue;
    String activityType;
    long firstDispatchAt = Long.MAX_VALUE;
    long lastOffset = -1;
    HistoryKind lastKind;

    SiteTrail(String siteKey, String namespace, String workflowId) {
        this.siteKey = siteKey;
        this.namespace = namespace;
        this.workflowId = workflowId;
    }

    void add(long offset, HistoryEvent e) {
        if (e.getKind() == HistoryKind.DISPATCHED) {
            firstDispatchAt = Math.min(firstDispatchAt, e.getAtMillis());
            if (offset > dispatchOffset) {
                dispatchOffset = offset;
                requestId = e.getRequestId();
                attempt = e.getAttempt();
                queue = e.getQueue();
                activityType = e.getActivityType();
            }
        }
        if (offset > lastOffset) {
            lastOffset = offset;
            lastKind = e.getKind();
        }
    }

    SiteTrail merge(SiteTrail o) {
        firstDispatchAt = Math.min(firstDispatchAt, o.firstDispatchAt);
        if (o.dispatchOffset > dispatchOffset) {
            dispatchOffset = o.dispatchOffset;
            requestId = o.requestId;
            attempt = o.attempt;
            queue = o.queue;
            activityType = o.activityType;
        }
        if (o.lastOffset > lastOffset) {
            lastOffset = o.lastOffset;
            lastKind = o.lastKind;
        }
        return this;
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
