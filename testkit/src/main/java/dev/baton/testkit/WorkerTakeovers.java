package dev.baton.testkit;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;

/**
 * How long a killed worker's activities waited to be leased elsewhere, read from history: for a
 * kill of worker W at time T, the sites whose last lease before T was W's and still open (no
 * outcome, retry, timeout or park recorded after it), and for each the first lease by another
 * worker after T. Lease times are the stream time history records ({@code atMillis}), on the
 * same machine's clock as the kill's.
 */
public final class WorkerTakeovers {

    /** A worker killed with {@code kill -9} at {@code atMillis} (epoch ms). */
    public record Kill(String workerId, long atMillis) {
    }

    /** What became of the leases a killed worker held. */
    public record Takeover(Kill kill, int leasesHeld, int leasedElsewhere, long medianMillis, long maxMillis) {
        @Override
        public String toString() {
            return leasedElsewhere == 0
                    ? String.format("worker %s: %d open leases, none leased elsewhere", kill.workerId(), leasesHeld)
                    : String.format("worker %s: %d open leases, %d leased elsewhere after %.1f s (median) / %.1f s (max)", kill.workerId(),
                    leasesHeld, leasedElsewhere, medianMillis / 1e3, maxMillis / 1e3);
        }
    }

    /** The kinds after which a lease is no longer open. */
    private static final Set<HistoryKind> CLOSING = EnumSet.of(HistoryKind.COMPLETED, HistoryKind.FAILED, HistoryKind.RETRY_SCHEDULED,
            HistoryKind.PARKED, HistoryKind.TRANSPORT_LOST, HistoryKind.TIMED_OUT, HistoryKind.CANCELLED, HistoryKind.SUPERSEDED);

    private WorkerTakeovers() {
    }

    /** One {@link Takeover} per kill, in the kills' order. */
    public static List<Takeover> measure(List<HistoryEvent> history, List<Kill> kills) {
        Map<String, List<HistoryEvent>> bySite = new HashMap<>();
        for (HistoryEvent e : history) {
            if (e.getKind() == HistoryKind.LEASED || CLOSING.contains(e.getKind())) {
                bySite.computeIfAbsent(siteOf(e), s -> new ArrayList<>()).add(e);
            }
        }
        List<Takeover> out = new ArrayList<>();
        for (Kill kill : kills) {
            List<Long> delays = new ArrayList<>();
            int held = 0;
            for (List<HistoryEvent> events : bySite.values()) {
                if (heldAt(events, kill)) {
                    held++;
                    events.stream().filter(e -> e.getKind() == HistoryKind.LEASED && e.getAtMillis() > kill.atMillis()
                                    && !kill.workerId().equals(String.valueOf(e.getWorkerId())))
                            .findFirst().ifPresent(e -> delays.add(e.getAtMillis() - kill.atMillis()));
                }
            }
            delays.sort(Long::compare);
            out.add(new Takeover(kill, held, delays.size(), delays.isEmpty() ? 0 : delays.get(delays.size() / 2),
                    delays.isEmpty() ? 0 : delays.get(delays.size() - 1)));
        }
        return out;
    }

    /** Whether the site's last lease before the kill was the killed worker's and nothing closed it before the kill. */
    private static boolean heldAt(List<HistoryEvent> events, Kill kill) {
        boolean held = false;
        for (HistoryEvent e : events) {
            if (e.getAtMillis() > kill.atMillis()) {
                break;
            }
            if (e.getKind() == HistoryKind.LEASED) {
                held = kill.workerId().equals(String.valueOf(e.getWorkerId()));
            } else {
                held = false;
            }
        }
        return held;
    }

    private static String siteOf(HistoryEvent e) {
        return e.getSite().getNamespace() + "/" + e.getSite().getWorkflowId() + "/" + e.getSite().getActivityId();
    }
}
