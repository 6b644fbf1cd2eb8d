package dev.baton.embedded;

import java.time.Duration;

/** One running node of an {@link EmbeddedKafkaCluster}: in the cluster's JVM, or a child JVM of its own. */
interface NodeRuntime {

    /** Gone the way a crash goes: the rest of the cluster finds out by missed heartbeats. Returns once it has stopped. */
    void crash();

    /** An orderly stop: a controlled shutdown where the node is configured for one. Returns once it has stopped. */
    void stop();

    /**
     * Frozen for {@code outage} and then resumed: its connections stay open but nothing answers,
     * which is how a node cut off from clients and peers looks to both.
     *
     * @throws UnsupportedOperationException for a node in the cluster's own JVM, which cannot be frozen alone
     */
    void pause(Duration outage) throws InterruptedException;
}
