package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.baton.cli.CliRun;
import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.streams.BatonStreamsApp;
import dev.baton.testkit.TempDirs;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adversary (adv22o): DESIGN §3 makes {@code baton.dispatch} and {@code baton.worker-events} co-partitioned: one stream
 * task owns every event of a site. On a cluster where {@code baton.worker-events} already existed with another partition
 * count, {@code baton topics create} reports the mismatch (exit 2) but an operator may go on, and the streams app started
 * anyway: Kafka Streams checks co-partitioning only for joins, so every worker report whose key hashes elsewhere was
 * dead-lettered as "wrong partition" and its site waited forever (no timeout exists unless configured). It must refuse to
 * start, naming both topics and their counts.
 */
class Adv22oCoPartitionIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @Test
    void shouldRefuseToStartWhenDispatchAndWorkerEventsAreNotCoPartitioned() throws Exception {
        String bootstrap = KAFKA.bootstrapServers();
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            // baton.worker-events made beforehand with 2 partitions (by hand, or an older layout), then the rest with 4
            admin.createTopics(List.of(new NewTopic(BatonTopics.WORKER_EVENTS, 2, (short) 1))).all().get();
            TopicCreator.Report report = new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(4), List.of("q")));
            assertThat(report.ok()).isFalse();
        }
        CliRun topics = CliRun.of("topics", "create", "--bootstrap-servers", bootstrap, "--partitions", "4", "--queue", "q");
        assertThat(topics.exit()).as(topics.output()).isEqualTo(2);

        Path state = TempDirs.create("adv22o-copart-");
        Map<String, Object> config = new HashMap<>(ClientConfigs.bootstrap(bootstrap));
        config.put("state.dir", state.toString());
        assertThatThrownBy(() -> {
            BatonStreamsApp app = new BatonStreamsApp(config, new SimpleMeterRegistry());
            try {
                app.start();
            } finally {
                app.close();
            }
        }).hasMessageContaining(BatonTopics.DISPATCH).hasMessageContaining("4")
                .hasMessageContaining(BatonTopics.WORKER_EVENTS).hasMessageContaining("2").hasMessageContaining("co-partitioned");
    }
}
