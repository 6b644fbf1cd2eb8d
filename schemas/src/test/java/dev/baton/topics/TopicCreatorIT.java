package dev.baton.topics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.baton.embedded.EmbeddedKafkaExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TopicCreatorIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @Test
    void shouldCreateEveryTopicOnceAndReportThemPresentTheSecondTime() throws Exception {
        try (Admin admin = admin()) {
            List<TopicSpec> specs = BatonTopics.all(TopicLayout.defaults().withPartitions(3), List.of("payments", "mail"));
            TopicCreator.Report first = new TopicCreator(admin).create(specs);
            assertThat(first.created()).contains(BatonTopics.DISPATCH, BatonTopics.WORKER_EVENTS, "baton.tasks.payments", "baton.tasks.mail");
            assertThat(first.ok()).isTrue();

            TopicCreator.Report second = new TopicCreator(admin).create(specs);
            assertThat(second.created()).isEmpty();
            assertThat(second.existing()).hasSameSizeAs(specs);

            Config workers = admin.describeConfigs(Set.of(new ConfigResource(ConfigResource.Type.TOPIC, BatonTopics.WORKERS)))
                    .all().get().values().iterator().next();
            assertThat(workers.get("cleanup.policy").value()).isEqualTo("compact");
            Config schemas = admin.describeConfigs(Set.of(new ConfigResource(ConfigResource.Type.TOPIC, BatonTopics.SCHEMAS)))
                    .all().get().values().iterator().next();
            assertThat(schemas.get("cleanup.policy").value()).isEqualTo("delete");
            assertThat(schemas.get("retention.ms").value()).isEqualTo("-1");
            assertThat(admin.describeTopics(Set.of(BatonTopics.SCHEMAS)).allTopicNames().get()
                    .get(BatonTopics.SCHEMAS).partitions()).hasSize(1);
        }
    }

    @Test
    void shouldReportAPartitionMismatchWithoutChangingTheTopic() throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(Set.of(new NewTopic("baton.tasks.skewed", 2, (short) 1))).all().get();
            TopicCreator.Report report = new TopicCreator(admin).create(List.of(new TopicSpec("baton.tasks.skewed", 5, (short) 1, Map.of())));
            assertThat(report.ok()).isFalse();
            assertThat(report.mismatches()).singleElement().asString().contains("baton.tasks.skewed has 2 partitions, declared 5");
            assertThat(admin.describeTopics(Set.of("baton.tasks.skewed")).allTopicNames().get().get("baton.tasks.skewed").partitions()).hasSize(2);
        }
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()));
    }
}
