package dev.baton.embedded;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.utils.Time;

/**
 * The entry point of one cluster node run as a child JVM ({@link EmbeddedKafkaCluster.Builder#separateProcesses()}):
 * starts a KRaft node from a formatted data directory's {@code server.properties}, prints
 * {@value #READY} once it serves, and runs until it is stopped. SIGTERM runs the shutdown hook
 * (a controlled shutdown: leadership moves off the node first); SIGKILL is a crash.
 */
public final class KafkaNodeMain {

    /** The line the parent waits for. */
    static final String READY = "baton kafka node ready";

    private KafkaNodeMain() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: KafkaNodeMain <server.properties>");
            System.exit(2);
        }
        Properties props = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
            props.load(r);
        }
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.shutdown();
            server.awaitShutdown();
        }, "baton-kafka-node-shutdown"));
        server.startup();
        System.out.println(READY);
        System.out.flush();
        server.awaitShutdown();
    }
}
