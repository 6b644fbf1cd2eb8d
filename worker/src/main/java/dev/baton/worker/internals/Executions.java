package dev.baton.worker.internals;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.baton.events.SiteRef;

/** The executions this worker holds (leased, queued or running), by token. */
public final class Executions {

    private final Map<String, Execution> byToken = new ConcurrentHashMap<>();

    public void add(Execution e) {
        byToken.put(e.token(), e);
    }

    public void remove(Execution e) {
        byToken.remove(e.token(), e);
    }

    public int size() {
        return byToken.size();
    }

    public Collection<Execution> all() {
        return byToken.values();
    }

    /** Stops the execution of that generation, if this worker holds it; true if one was stopped. */
    public boolean stop(SiteRef site, int attempt, int generation) {
        boolean stopped = false;
        for (Execution e : byToken.values()) {
            if (e.task().getSite().equals(site) && e.attempt() == attempt && e.generation() == generation) {
                stopped |= e.stop();
            }
        }
        return stopped;
    }
}
