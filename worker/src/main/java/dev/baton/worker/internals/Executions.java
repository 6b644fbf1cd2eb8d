package dev.baton.worker.internals;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.baton.events.SiteRef;
import dev.baton.schemas.CompletionToken;

/** The executions this worker holds (leased, queued or running), by token. */
public final class Executions {

    private final Map<String, Execution> byToken = new ConcurrentHashMap<>();

    public void add(Execution e) {
        byToken.put(e.token(), e);
    }

    public void remove(Execution e) {
        byToken.remove(e.token(), e);
    }

    /** Whether a run of this token is in this worker (a task republished with the same token is not run twice here). */
    public boolean holds(String token) {
        return byToken.containsKey(token);
    }

    public int size() {
        return byToken.size();
    }

    public Collection<Execution> all() {
        return byToken.values();
    }

    /**
     * Stops the execution of that generation if this worker holds it and its token has the fingerprint
     * {@code tokenFingerprint}; true if one was stopped. Site, attempt and generation alone prove
     * nothing (anyone who can write a stop request can name them), so a request without a
     * fingerprint, or whose fingerprint is not that execution's token's, stops nothing.
     */
    public boolean stop(SiteRef site, int attempt, int generation, String tokenFingerprint) {
        if (tokenFingerprint == null) {
            return false;
        }
        boolean stopped = false;
        for (Execution e : byToken.values()) {
            // Identity first: it is cheap, and only a match is worth hashing a token for.
            if (e.task().getSite().equals(site) && e.attempt() == attempt && e.generation() == generation
                    && CompletionToken.fingerprint(e.token()).equals(tokenFingerprint)) {
                stopped |= e.stop();
            }
        }
        return stopped;
    }
}
