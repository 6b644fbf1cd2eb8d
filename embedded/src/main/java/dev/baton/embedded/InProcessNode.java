package dev.baton.embedded;

import java.time.Duration;
import java.util.Properties;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.utils.Time;

/**
 * A node in the cluster's JVM. It has no controlled shutdown, so {@link #stop()} and {@link #crash()}
 * are alike to the rest of the cluster; unlike {@code kill -9}, its log files are closed cleanly.
 */
final class InProcessNode implements NodeRuntime {

    private final KafkaRaftServer server;

    private InProcessNode(KafkaRaftServer server) {
        this.server = server;
    }

    /** Starts the node and returns once it serves as a broker. */
    static InProcessNode start(Properties props) {
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        server.startup();
        return new InProcessNode(server);
    }

    @Override
    public void crash() {
        stop();
    }

    @Override
    public void stop() {
        server.shutdown();
        server.awaitShutdown();
    }

    @Override
    public void pause(Duration outage) {
        throw new UnsupportedOperationException("a node in the cluster's own JVM cannot be paused alone; build the cluster with separateProcesses()");
    }
}
