package dev.baton.topics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

/**
 * Adversary round 22 (worker lifecycle), finding 9. DESIGN §3: Baton's topics are created by {@code baton topics create},
 * never auto-created. A worker's task consumer (a group consumer) and its control reader (an assigned reader) left
 * Kafka's consumer default {@code allow.auto.create.topics=true}: on a broker with Kafka's own default
 * ({@code auto.create.topics.enable=true}; the embedded broker and compose turn it off), {@code baton worker --queue
 * typo} or a node label nobody declared created {@code baton.tasks.typo} (or {@code baton.tasks.q.gpu}) with the broker's
 * default partitions and configs, and the streams app then routed dispatches to it as a declared queue (node).
 * The schema registry's reader already turned it off.
 */
class Adv22wNoAutoCreateTest {

    @Test
    void baton_sConsumersNeverAskTheBrokerToCreateATopic() {
        Map<String, Object> settings = Map.of("bootstrap.servers", "localhost:1");
        assertThat(ClientConfigs.groupConsumer(settings, "baton-worker-q", "earliest"))
                .containsEntry(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        assertThat(ClientConfigs.assignedReader(settings)).containsEntry(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    }

    @Test
    void aUsersSettingCannotTurnItBackOn() {
        Map<String, Object> settings = Map.of("bootstrap.servers", "localhost:1", ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "true");
        assertThat(ClientConfigs.groupConsumer(settings, "g", "earliest")).containsEntry(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    }
}
