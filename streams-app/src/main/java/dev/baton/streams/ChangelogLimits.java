package dev.baton.streams;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.baton.streams.config.StreamsAppConfig;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Raises an existing changelog's {@code max.message.bytes} to {@link StreamsAppConfig#CHANGELOG_RECORD_MAX_BYTES}.
 * Kafka Streams applies its {@code topic.} configs only to the changelogs it creates: one created by an older version
 * kept the broker's 1 MiB, which a row holding two payloads exceeds (the stream thread then dies on that row's write
 * again and again). A changelog not yet created is left to Kafka Streams; one that cannot be altered (no ACL) is
 * reported with the command that fixes it, and the app starts anyway.
 */
final class ChangelogLimits {

    private static final Logger log = LoggerFactory.getLogger(ChangelogLimits.class);

    private ChangelogLimits() {
    }

    static void raise(Admin admin, String applicationId, Collection<String> stores) {
        for (String store : stores) {
            String topic = applicationId + "-" + store + "-changelog";
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            try {
                Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
                ConfigEntry entry = config.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
                if (entry != null && Long.parseLong(entry.value()) >= StreamsAppConfig.CHANGELOG_RECORD_MAX_BYTES) {
                    continue;
                }
                admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(new ConfigEntry(TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                        Integer.toString(StreamsAppConfig.CHANGELOG_RECORD_MAX_BYTES)), AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
                log.info("changelog {}: max.message.bytes raised from {} to {}, so a row holding two payloads fits", topic,
                        entry == null ? "the broker's default" : entry.value(), StreamsAppConfig.CHANGELOG_RECORD_MAX_BYTES);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    warn(topic, e.getCause());
                }
            } catch (TimeoutException e) {
                warn(topic, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void warn(String topic, Throwable cause) {
        log.warn("changelog {}: could not check or raise max.message.bytes to {} ({}); a site row over the topic's limit would stop "
                + "its stream thread. Run: kafka-configs --alter --entity-type topics --entity-name {} --add-config max.message.bytes={}",
                topic, StreamsAppConfig.CHANGELOG_RECORD_MAX_BYTES, cause.toString(), topic, StreamsAppConfig.CHANGELOG_RECORD_MAX_BYTES);
    }
}
