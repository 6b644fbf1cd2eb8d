package dev.baton.worker.internals;

import java.time.Clock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a heartbeat for every held execution whose heartbeat is due (every heartbeat window / 3,
 * from the task). One round covers every execution, so heartbeats leave in batches.
 */
public final class Heartbeater implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(Heartbeater.class);

    private final Executions executions;
    private final EventSender events;
    private final Clock clock;

    public Heartbeater(Executions executions, EventSender events, Clock clock) {
        this.executions = executions;
        this.events = events;
        this.clock = clock;
    }

    @Override
    public void run() {
        long now = clock.millis();
        try {
            for (Execution e : executions.all()) {
                if (e.phase() == Execution.Phase.RUNNING && now - e.lastHeartbeatMillis() >= e.heartbeatIntervalMillis()) {
                    events.heartbeat(e);
                    e.heartbeatSent(now);
                }
            }
        } catch (RuntimeException ex) {
            log.warn("heartbeat round failed: {}", ex.toString());
        }
    }
}
