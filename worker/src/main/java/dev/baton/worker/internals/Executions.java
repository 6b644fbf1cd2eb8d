package dev.baton.worker.internals;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.baton.events.SiteRef;
import dev.baton.schemas.CompletionToken;

/** The executions this worker holds (leased, queued or running), by token. */
public final class Executions {

    /** How many stop requests' fingerprints a worker remembers (22 characters each: about 1 MB at most). */
    static final int STOPS_REMEMBERED = 16_384;

    private final Map<String, Execution> byToken = new ConcurrentHashMap<>();
    /**
     * Fingerprints of the tokens this worker was told to stop, held here or not: a run handed off to
     * complete later ({@link dev.baton.worker.AsyncCompletion#isStopped()}), or a task read after its
     * stop (a cancelled task whose lease was refused, read again after a rebalance), is then known
     * stopped. The oldest are forgotten first.
     */
    private final Set<String> stopsSeen = Collections.newSetFromMap(Collections.synchronizedMap(new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > STOPS_REMEMBERED;
        }
    }));

    public void add(Execution e) {
        byToken.put(e.token(), e);
    }

    public void remove(Execution e) {
        byToken.remove(e.token(), e);
    }

    /** The run of this token in this worker, or null (a task republished with the same token is not run twice here). */
    public Execution get(String token) {
        return byToken.get(token);
    }

    /** Whether this worker was told to stop the run of {@code token} (it may never have held it, or hold it no more). */
    public boolean stopSeen(String token) {
        // Asked for every task read; while no stop was ever seen (nearly always) it needs no SHA-256 of the token.
        return !stopsSeen.isEmpty() && stopsSeen.contains(CompletionToken.fingerprint(token));
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
        stopsSeen.add(tokenFingerprint);
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
