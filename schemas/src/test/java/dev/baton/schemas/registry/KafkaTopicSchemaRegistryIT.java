package dev.baton.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.events.Outcome;
import dev.baton.schemas.EventExamples;
import dev.baton.schemas.EventExamples.Example;
import dev.baton.schemas.EventSerde;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class KafkaTopicSchemaRegistryIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private SchemaRegistry client() {
        return SchemaRegistry.forUrl("kafka://" + KAFKA.bootstrapServers(), Map.of());
    }

    @Test
    void shouldRoundTripEveryEventTypeAndAgreeOnIdsAcrossClients() {
        try (SchemaRegistry writerSide = client(); SchemaRegistry readerSide = client()) {
            for (Example sample : EventExamples.all()) {
                byte[] bytes = serde(sample.event(), writerSide).encode(sample.topic(), sample.event());
                assertThat(serde(sample.event(), readerSide).decode(sample.topic(), bytes)).isEqualTo(sample.event());

                int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
                assertThat(readerSide.register(sample.topic() + "-value", sample.event().getSchema())).isEqualTo(id);
                assertThat(readerSide.latest(sample.topic() + "-value")).hasValueSatisfying(r -> assertThat(r.id()).isEqualTo(id));
            }
        }
    }

    @Test
    void shouldGiveOneIdToASchemaRegisteredConcurrentlyByManyClients() throws Exception {
        Schema schema = SchemaBuilder.record("Race").namespace("it.baton").fields().requiredLong("n").endRecord();
        int clients = 4;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<SchemaRegistry> registries = new ArrayList<>();
        try {
            List<Callable<Integer>> calls = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                SchemaRegistry r = client();
                registries.add(r);
                calls.add(() -> r.register("race-value", schema));
            }
            List<Integer> ids = new ArrayList<>();
            for (Future<Integer> f : pool.invokeAll(calls)) {
                ids.add(f.get());
            }
            assertThat(ids).hasSize(clients).containsOnly(ids.get(0));
            try (SchemaRegistry late = client()) {
                assertThat(late.schemaById(ids.get(0))).isEqualTo(schema);
                assertThat(late.latest("race-value")).hasValueSatisfying(r -> assertThat(r.version()).isEqualTo(1));
            }
        } finally {
            pool.shutdownNow();
            registries.forEach(SchemaRegistry::close);
        }
    }

    @Test
    void shouldRefuseAnIncompatibleSchemaAndKeepTheOldOne() {
        Schema v1 = SchemaBuilder.record("Evolving").namespace("it.baton").fields().requiredString("a").endRecord();
        Schema v2 = SchemaBuilder.record("Evolving").namespace("it.baton").fields().requiredString("a").requiredInt("b").endRecord();
        try (SchemaRegistry r = client()) {
            int id = r.register("evolving-value", v1);
            assertThat(r.isCompatible("evolving-value", v2)).isFalse();
            assertThatThrownBy(() -> r.register("evolving-value", v2)).isInstanceOf(IncompatibleSchemaException.class)
                    .hasMessageContaining("evolving-value");
            assertThat(r.latest("evolving-value")).hasValueSatisfying(l -> assertThat(l.id()).isEqualTo(id));
        }
    }

    @Test
    void shouldAnswerUnknownIdsWithSchemaNotFound() {
        try (SchemaRegistry r = client()) {
            assertThatThrownBy(() -> r.schemaById(1_000_000)).isInstanceOf(SchemaNotFoundException.class).hasMessageContaining("1000000");
        }
    }

    @Test
    void shouldShareOneRegistryTopicWithTheSerdeOfAnotherProcess() {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", KAFKA.bootstrapServers());
        try (SchemaRegistry a = SchemaRegistry.forUrl("kafka://", config); SchemaRegistry b = client()) {
            Outcome outcome = (Outcome) EventExamples.all().get(5).event();
            byte[] bytes = EventSerde.of(Outcome.class, a).encode("baton.results", outcome);
            assertThat(EventSerde.of(Outcome.class, b).decode("baton.results", bytes)).isEqualTo(outcome);
        }
    }

    @SuppressWarnings("unchecked")
    private static EventSerde<SpecificRecord> serde(SpecificRecord event, SchemaRegistry registry) {
        return EventSerde.of((Class<SpecificRecord>) event.getClass(), registry);
    }
}
