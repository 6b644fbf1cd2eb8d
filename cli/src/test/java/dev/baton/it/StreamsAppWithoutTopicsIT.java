package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.streams.BatonStreamsApp;
import dev.baton.testkit.TempDirs;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A streams app started on a cluster where nobody ran {@code baton topics create}: Kafka Streams' global thread died on
 * the missing {@code baton.workers} and the app sat in ERROR until {@code awaitRunning} gave up after five minutes,
 * saying "not RUNNING (state ERROR)" and nothing of why. It must refuse at once, naming the missing topics and the
 * command that creates them.
 */
class StreamsAppWithoutTopicsIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @Test
    void shouldRefuseToStartNamingTheMissingTopicsAndHowToCreateThem() throws Exception {
        Map<String, Object> config = new HashMap<>(ClientConfigs.bootstrap(KAFKA.bootstrapServers()));
        config.put("state.dir", TempDirs.create("no-topics-").toString());
        long began = System.nanoTime();

        assertThatThrownBy(() -> {
            try (BatonStreamsApp app = new BatonStreamsApp(config, new SimpleMeterRegistry())) {
                app.start();
            }
        }).hasMessageContaining("Baton's topics are missing").hasMessageContaining(BatonTopics.DISPATCH)
                .hasMessageContaining(BatonTopics.WORKER_EVENTS).hasMessageContaining(BatonTopics.WORKERS)
                .hasMessageContaining("baton topics create");
        assertThat(Duration.ofNanos(System.nanoTime() - began)).as("refused after a short wait, not a stream thread's timeout")
                .isLessThan(Duration.ofSeconds(60));
    }
}
