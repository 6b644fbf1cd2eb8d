package dev.baton.embedded;

import java.nio.file.Path;
import java.util.Properties;

/**
 * The settings every embedded KRaft node shares, alone or in a cluster: combined broker and
 * controller, plaintext listeners on 127.0.0.1, internal topics replicated {@code replication} ways
 * with {@code minIsr} in sync, and the test-JVM-sized defaults. Each caller adds what is its own.
 */
final class KraftNode {

    private KraftNode() {
    }

    static Properties properties(int nodeId, String voters, int brokerPort, int controllerPort, int advertisedPort, Path dir,
                                 int replication, int minIsr) {
        String rf = String.valueOf(replication);
        String isr = String.valueOf(minIsr);
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", String.valueOf(nodeId));
        p.put("controller.quorum.voters", voters);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + advertisedPort);
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", dir.resolve("logs").toString());
        p.put("metadata.log.dir", dir.resolve("metadata").toString());
        p.put("default.replication.factor", rf);
        p.put("min.insync.replicas", isr);
        p.put("offsets.topic.replication.factor", rf);
        p.put("offsets.topic.num.partitions", "12");
        p.put("transaction.state.log.replication.factor", rf);
        p.put("transaction.state.log.min.isr", isr);
        p.put("transaction.state.log.num.partitions", "12");
        p.put("share.coordinator.state.topic.replication.factor", rf);
        p.put("share.coordinator.state.topic.min.isr", isr);
        p.put("group.initial.rebalance.delay.ms", "0");
        // A dispatch client holds its id as the static member of a consumer-protocol group: one restarted after a kill -9
        // waits for its predecessor's session to end. 45 s by default; 10 s here, for the demo's and the tests' restarts.
        p.put("group.consumer.min.session.timeout.ms", "6000");
        p.put("group.consumer.session.timeout.ms", "10000");
        p.put("group.consumer.min.heartbeat.interval.ms", "1000");
        p.put("group.consumer.heartbeat.interval.ms", "2000");
        // Baton declares every topic it uses; an auto-created topic would hide a missing declaration.
        p.put("auto.create.topics.enable", "false");
        // The cleaner's default 128 MiB dedupe buffer, once per node, would dominate a test JVM's heap.
        p.put("log.cleaner.dedupe.buffer.size", String.valueOf(2 * 1024 * 1024));
        p.put("num.partitions", "1");
        // Abort a crashed client's open transaction soon after its timeout (default check: every 10 s),
        // so read_committed readers behind it are not held up longer than the timeout itself.
        p.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
        p.put("log.flush.interval.messages", String.valueOf(Long.MAX_VALUE));
        p.put("unstable.api.versions.enable", "false");
        return p;
    }
}
