package dev.baton.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.events.DispatchCommand;
import dev.baton.events.Outcome;
import dev.baton.schemas.EventExamples;
import dev.baton.schemas.EventSerde;
import dev.baton.topics.BatonTopics;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The REST API over the {@code kafka://} registry of a real broker: a client of the REST API and a
 * Java process using the schema topic directly see the same ids, whichever registered first.
 */
class SchemaRegistryRestIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();
    private SchemaRegistry served;
    private SchemaRegistryRestServer rest;

    @BeforeEach
    void start() throws Exception {
        served = client();
        rest = SchemaRegistryRestServer.start(served, 0);
    }

    @AfterEach
    void stop() {
        rest.close();
        served.close();
    }

    @Test
    void shouldAnswerTheIdTheJavaSerdeFramedWithForAnyTextOfItsSchema() throws Exception {
        DispatchCommand command = (DispatchCommand) EventExamples.all().stream()
                .filter(e -> e.event() instanceof DispatchCommand).findFirst().orElseThrow().event();
        try (SchemaRegistry javaSide = client()) {
            byte[] framed = EventSerde.of(DispatchCommand.class, javaSide).encode(BatonTopics.DISPATCH, command);
            int id = ByteBuffer.wrap(framed, 1, 4).getInt();

            assertThat(get("/subjects/baton.dispatch-value/versions/latest").path("id").asInt()).isEqualTo(id);
            // Another language writes the JSON its own way: no Java properties, other whitespace.
            String foreign = json.writerWithDefaultPrettyPrinter().writeValueAsString(
                    json.readTree(SchemaNormalization.toParsingForm(DispatchCommand.getClassSchema())));
            assertThat(post("/subjects/baton.dispatch-value/versions", foreign).path("id").asInt()).isEqualTo(id);
            assertThat(post("/subjects/baton.dispatch-value", foreign).path("version").asInt()).isEqualTo(1);
        }
    }

    @Test
    void shouldGiveAJavaProcessTheIdARestClientRegisteredFirst() throws Exception {
        Schema schema = Outcome.getClassSchema();
        int id = post("/subjects/it-outcome-value/versions", SchemaNormalization.toParsingForm(schema)).path("id").asInt();

        try (SchemaRegistry javaSide = client()) {
            assertThat(javaSide.register("it-outcome-value", schema)).isEqualTo(id);
            Outcome outcome = (Outcome) EventExamples.all().stream().filter(e -> e.event() instanceof Outcome).findFirst().orElseThrow().event();
            byte[] framed = EventSerde.of(Outcome.class, javaSide).encode("it-outcome", outcome);
            assertThat(ByteBuffer.wrap(framed, 1, 4).getInt()).isEqualTo(id);
            assertThat(EventSerde.of(Outcome.class, served).decode("it-outcome", framed)).isEqualTo(outcome);
        }
    }

    @Test
    void shouldKeepReadingALegacyIdGivenToAnotherTextOfAKnownSchema() throws Exception {
        Schema schema = DispatchCommand.getClassSchema();
        int id;
        try (SchemaRegistry javaSide = client()) {
            id = javaSide.register("legacy-value", schema);
        }
        // Before canonical identity, a second text of the same schema got its own offset as its id.
        long legacyId;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers", KAFKA.bootstrapServers()),
                new StringSerializer(), new StringSerializer())) {
            legacyId = producer.send(new ProducerRecord<>(BatonTopics.SCHEMAS, 0, "legacy-value", schema.toString(true)))
                    .get(30, TimeUnit.SECONDS).offset();
        }

        assertThat(legacyId).isNotEqualTo(id);
        assertThat(new Schema.Parser().parse(get("/schemas/ids/" + legacyId).path("schema").asText())).isEqualTo(schema);
        assertThat(get("/subjects/legacy-value/versions")).as("the same schema is one version").hasToString("[1]");
    }

    private SchemaRegistry client() {
        return SchemaRegistry.forUrl("kafka://" + KAFKA.bootstrapServers(), Map.of());
    }

    private JsonNode get(String path) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(rest.url() + path)).GET());
    }

    private JsonNode post(String path, String schema) throws Exception {
        String body = json.createObjectNode().put("schema", schema).toString();
        return send(HttpRequest.newBuilder(URI.create(rest.url() + path))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)));
    }

    private JsonNode send(HttpRequest.Builder request) throws Exception {
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return json.readTree(response.body());
    }
}
