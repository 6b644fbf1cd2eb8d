package dev.baton.testkit;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

import dev.baton.embedded.EmbeddedKafkaCluster;

/**
 * Counts the leader elections a cluster goes through on the topics that matter to Baton's path,
 * by looking at their partitions' leaders once a second: each change of a partition's leader
 * (to another node, or to none) counts once. Elections that come and go within a second are missed,
 * so the count is a floor.
 */
final class LeaderWatch implements AutoCloseable {

    private final EmbeddedKafkaCluster cluster;
    private final List<String> topics;
    private final Map<String, Integer> leaders = new HashMap<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile int changes;

    LeaderWatch(EmbeddedKafkaCluster cluster, List<String> topics) {
        this.cluster = cluster;
        this.topics = List.copyOf(topics);
        this.thread = new Thread(this::run, "baton-leader-watch");
        thread.setDaemon(true);
        thread.start();
    }

    /** Leader changes seen so far. */
    int changes() {
        return changes;
    }

    private void run() {
        while (running) {
            try {
                for (String topic : topics) {
                    SortedMap<Integer, Integer> now = cluster.leaders(topic);
                    now.forEach((p, leader) -> {
                        Integer before = leaders.put(topic + "-" + p, leader);
                        if (before != null && !before.equals(leader)) {
                            changes++;
                        }
                    });
                }
            } catch (RuntimeException e) {
                // no quorum to answer for a moment: look again at the next tick
            }
            try {
                Thread.sleep(1_000); // the watch's sampling period, not a wait for an event
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
