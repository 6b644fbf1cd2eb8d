package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import dev.baton.embedded.EmbeddedKafka;
import dev.baton.testkit.BatonProcess;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streams app started before its broker (a restart during a broker outage, a container set coming up) waits for the
 * broker and then runs. It exited after ~30 s with only {@code TimeoutException: Timeout expired while fetching topic
 * metadata} (h/adv26): its start-up reads the cluster (schema topic, instance agreement, co-partitioning) with 10-30 s
 * timeouts, while workers and its own Kafka clients wait for brokers.
 */
class StreamsAppBeforeBrokerIT {

    @TempDir
    Path dir;

    @Test
    void shouldWaitForItsBrokerAndThenRun() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().build()) { // its ports are chosen; it is not started
            Path config = Files.writeString(dir.resolve("streams.properties"), "state.dir=" + dir.resolve("state") + "\n");
            try (BatonProcess app = BatonProcess.start("early-streams-app", "no broker at", Duration.ofSeconds(60),
                    List.of("streams-app", "--bootstrap-servers", kafka.bootstrapServers(), "--config", config.toString()))) {
                kafka.start();
                try (Admin admin = Admin.create(kafka.adminConfig())) {
                    new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(2), List.of("early")));
                }

                await().atMost(Duration.ofMinutes(2)).until(() -> app.output().stream().anyMatch(l -> l.contains("streams app RUNNING"))
                        || !app.isAlive());
                assertThat(app.output()).as("the streams app, started before its broker").anyMatch(l -> l.contains("streams app RUNNING"));
                assertThat(app.isAlive()).isTrue();
            }
        }
    }
}
