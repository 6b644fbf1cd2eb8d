package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import dev.baton.cli.CliRun;
import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adversary (adv22o): {@code baton topics create} against a cluster where Baton's topics already exist checked their
 * partition counts only. A {@code baton.history} made compacted (a site's dispatch compacted away under its later events:
 * replay can no longer see a dangling site) or an {@code _baton_schemas} with the broker's retention and compaction (the
 * first registration of a schema deleted: its id changes, every record framed with it is undecodable) passed as "already
 * present", exit 0, and nothing else checks them. Each must be reported, naming the topic, the key and both values.
 */
class Adv22oTopicConfigIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @Test
    void shouldReportExistingTopicsWhoseCleanupOrRetentionBreaksWhatBatonReadsThemFor() throws Exception {
        String bootstrap = KAFKA.bootstrapServers();
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            admin.createTopics(List.of(
                    new NewTopic(BatonTopics.HISTORY, 2, (short) 1).configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)),
                    new NewTopic(BatonTopics.SCHEMAS, 1, (short) 1).configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)),
                    new NewTopic(BatonTopics.RESULTS, 2, (short) 1).configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)),
                    new NewTopic(BatonTopics.WORKERS, 2, (short) 1))).all().get();
        }
        CliRun topics = CliRun.of("topics", "create", "--bootstrap-servers", bootstrap, "--partitions", "2");
        assertThat(topics.exit()).as(topics.output()).isEqualTo(2);
        assertThat(topics.printed()).contains("MISMATCHES")
                .contains(BatonTopics.HISTORY + " has cleanup.policy=compact, declared delete")
                .contains(BatonTopics.SCHEMAS + " has cleanup.policy=compact, declared delete")
                .contains(BatonTopics.SCHEMAS + " has retention.ms=604800000, declared -1")
                .contains(BatonTopics.RESULTS + " has cleanup.policy=compact, declared delete")
                .contains(BatonTopics.WORKERS + " has cleanup.policy=delete, declared compact");
    }
}
