package dev.baton.streams.config;

import java.util.HashMap;
import java.util.Map;

import dev.baton.events.Timeouts;

/**
 * Per-queue default timeouts from {@code queue.<name>.schedule.to.start.ms},
 * {@code queue.<name>.start.to.close.ms}, {@code queue.<name>.schedule.to.close.ms} and
 * {@code queue.<name>.heartbeat.ms}. An activity's own timeout wins field by field; a field set
 * nowhere stays off.
 */
public final class QueueTimeouts {

    public static final String PREFIX = "queue.";
    private static final Map<String, String> FIELDS = Map.of("schedule.to.start.ms", "scheduleToStart",
            "start.to.close.ms", "startToClose", "schedule.to.close.ms", "scheduleToClose", "heartbeat.ms", "heartbeat");

    private final Map<String, Timeouts> byQueue;

    public QueueTimeouts(Map<String, Timeouts> byQueue) {
        this.byQueue = Map.copyOf(byQueue);
    }

    public static QueueTimeouts none() {
        return new QueueTimeouts(Map.of());
    }

    /**
     * Parses every {@code queue.<name>.<field>} key; throws naming a key it cannot read. The streams
     * app's own keys under the prefix ({@code queue.refresh.ms}) are not per-queue keys.
     */
    public static QueueTimeouts from(Map<String, ?> originals) {
        Map<String, Timeouts> out = new HashMap<>();
        for (Map.Entry<String, ?> e : originals.entrySet()) {
            String key = e.getKey();
            if (!key.startsWith(PREFIX) || StreamsAppConfig.CONFIG.names().contains(key)) {
                continue;
            }
            String rest = key.substring(PREFIX.length());
            String field = FIELDS.keySet().stream().filter(f -> rest.endsWith("." + f)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("unknown per-queue key '" + key + "'; use queue.<name>.{"
                            + String.join(",", FIELDS.keySet()) + "}"));
            String queue = rest.substring(0, rest.length() - field.length() - 1);
            long ms;
            try {
                ms = Long.parseLong(e.getValue().toString().trim());
            } catch (NumberFormatException ex) {
                throw new IllegalArgumentException(key + " must be a number of milliseconds, was '" + e.getValue() + "'");
            }
            if (ms <= 0) {
                throw new IllegalArgumentException(key + " must be > 0, was " + ms);
            }
            Timeouts t = out.computeIfAbsent(queue, q -> new Timeouts(null, null, null, null));
            switch (FIELDS.get(field)) {
                case "scheduleToStart" -> t.setScheduleToStartMillis(ms);
                case "startToClose" -> t.setStartToCloseMillis(ms);
                case "scheduleToClose" -> t.setScheduleToCloseMillis(ms);
                default -> t.setHeartbeatMillis(ms);
            }
        }
        return new QueueTimeouts(out);
    }

    /** The activity's timeouts completed with its queue's defaults; null when neither sets any. */
    public Timeouts resolve(String queue, Timeouts activity) {
        Timeouts q = byQueue.get(queue);
        if (q == null) {
            return activity;
        }
        if (activity == null) {
            return Timeouts.newBuilder(q).build();
        }
        return new Timeouts(first(activity.getScheduleToStartMillis(), q.getScheduleToStartMillis()),
                first(activity.getStartToCloseMillis(), q.getStartToCloseMillis()),
                first(activity.getScheduleToCloseMillis(), q.getScheduleToCloseMillis()),
                first(activity.getHeartbeatMillis(), q.getHeartbeatMillis()));
    }

    private static Long first(Long a, Long b) {
        return a != null ? a : b;
    }
}
