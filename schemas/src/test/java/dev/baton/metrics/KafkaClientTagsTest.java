package dev.baton.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** Kafka client meters carry no process id (client id, Streams' process UUID) as a label, and one process's clients stay apart. */
class KafkaClientTagsTest {

    @Test
    void shouldLabelBoundClientsByRoleInsteadOfTheirClientId() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ClientMeters meters = new ClientMeters(registry);
             KafkaProducer<byte[], byte[]> events = meters.producer(producer("baton-worker-events-worker-1a2b3c4d"), "worker-events");
             KafkaProducer<byte[], byte[]> leases = meters.producer(producer("worker-1a2b3c4d-payments"),
                     "worker-leases/payments")) {
            List<Meter> kafka = registry.getMeters().stream().filter(m -> m.getId().getName().startsWith("kafka.producer")).toList();

            assertThat(kafka).isNotEmpty();
            assertThat(kafka).allSatisfy(m -> assertThat(m.getId().getTag("client.id")).as(m.getId().toString()).isNull());
            Set<String> roles = registry.find("kafka.producer.record.send.total").meters().stream()
                    .map(m -> m.getId().getTag("role")).collect(Collectors.toSet());
            assertThat(roles).as("two clients of one process, apart").containsExactlyInAnyOrder("worker-events", "worker-leases/payments");
        }
    }

    @Test
    void shouldKeepTwoClientsOfOneRoleInOneRegistryApart() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ClientMeters first = new ClientMeters(registry);
        ClientMeters second = new ClientMeters(registry);
        try (KafkaProducer<byte[], byte[]> a = first.producer(producer("baton-worker-events-worker-a"), "worker-events");
             KafkaProducer<byte[], byte[]> b = second.producer(producer("baton-worker-events-worker-b"), "worker-events")) {
            assertThat(roles(registry)).containsExactlyInAnyOrder("worker-events", "worker-events#2");

            first.close();

            assertThat(roles(registry)).as("the first worker's close leaves the second's meters").containsExactly("worker-events#2");
        } finally {
            second.close();
        }
    }

    private static Set<String> roles(SimpleMeterRegistry registry) {
        return registry.find("kafka.producer.record.send.total").meters().stream()
                .map(m -> m.getId().getTag("role")).collect(Collectors.toSet());
    }

    @Test
    void shouldKeepOnlyWhatFollowsTheProcessUuidInKafkaStreamsLabels() {
        Meter.Id id = new Meter.Id("kafka.stream.thread.poll.rate", io.micrometer.core.instrument.Tags.of(
                Tag.of("client.id", "baton-streams-3f0e2a4c-1b2d-4e5f-8a9b-0c1d2e3f4a5b-StreamThread-1-consumer"),
                Tag.of("thread.id", "baton-streams-3f0e2a4c-1b2d-4e5f-8a9b-0c1d2e3f4a5b-StreamThread-1"),
                Tag.of("process.id", "3f0e2a4c-1b2d-4e5f-8a9b-0c1d2e3f4a5b")), null, null, Meter.Type.GAUGE);

        Meter.Id mapped = new KafkaClientTags().map(id);

        assertThat(mapped.getTag("client.id")).isNull();
        assertThat(mapped.getTag("role")).isEqualTo("StreamThread-1-consumer");
        assertThat(mapped.getTag("thread.id")).isEqualTo("StreamThread-1");
        assertThat(mapped.getTag("process.id")).isEmpty();
    }

    @Test
    void shouldKeepTwoKafkaStreamsInstancesInOneRegistryApart() {
        KafkaClientTags tags = new KafkaClientTags();
        String first = "baton-streams-3f0e2a4c-1b2d-4e5f-8a9b-0c1d2e3f4a5b-StreamThread-1-producer";
        String second = "baton-streams-9a8b7c6d-1b2d-4e5f-8a9b-0c1d2e3f4a5b-StreamThread-1-producer";

        assertThat(tags.map(producerMeter(first)).getTag("role")).isEqualTo("StreamThread-1-producer");
        assertThat(tags.map(producerMeter(second)).getTag("role")).isEqualTo("StreamThread-1-producer#2");
        assertThat(tags.map(producerMeter(first)).getTag("role")).as("the first instance keeps its name").isEqualTo("StreamThread-1-producer");
    }

    private static Meter.Id producerMeter(String clientId) {
        return new Meter.Id("kafka.producer.network.io.rate", io.micrometer.core.instrument.Tags.of(Tag.of("client.id", clientId)),
                null, null, Meter.Type.GAUGE);
    }

    @Test
    void shouldStripTheProcessUuidFromAThreadMeterWithoutAClientId() {
        Meter.Id id = new Meter.Id("kafka.stream.thread.commit.total", io.micrometer.core.instrument.Tags.of(
                Tag.of("thread.id", "baton-streams-2493c39b-1031-49b0-aca9-38bfa244f13e-StreamThread-1")), null, null, Meter.Type.COUNTER);

        assertThat(new KafkaClientTags().map(id).getTag("thread.id")).isEqualTo("StreamThread-1");
    }

    private static KafkaProducer<byte[], byte[]> producer(String clientId) {
        Map<String, Object> c = new HashMap<>();
        c.put("bootstrap.servers", "localhost:1");
        c.put("client.id", clientId);
        return new KafkaProducer<>(c, new ByteArraySerializer(), new ByteArraySerializer());
    }
}
