package dev.baton.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.kafka.common.errors.RetriableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The http:// client against recorded Confluent REST answers, served from a local HTTP server. */
class ConfluentRestSchemaRegistryTest {

    private static final Schema ORDER = SchemaBuilder.record("Order").namespace("it.baton").fields().requiredLong("id").endRecord();

    private record Request(String line, String contentType, String body) {
    }

    private final ObjectMapper json = new ObjectMapper();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private HttpServer server;
    private SchemaRegistry registry;

    @BeforeEach
    void startRecordedRegistry() throws IOException {
        JsonNode recorded;
        try (InputStream in = getClass().getResourceAsStream("/confluent-recorded.json")) {
            recorded = json.readTree(in);
        }
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> answer(exchange, recorded));
        server.start();
        registry = SchemaRegistry.forUrl("http://127.0.0.1:" + server.getAddress().getPort(), Map.of());
    }

    @AfterEach
    void stop() {
        registry.close();
        server.stop(0);
    }

    @Test
    void shouldRegisterUnderTheSubjectWithTheRegistryContentType() throws IOException {
        assertThat(registry.register("orders-value", ORDER)).isEqualTo(1);
        Request sent = requests.get(0);
        assertThat(sent.line()).isEqualTo("POST /subjects/orders-value/versions");
        assertThat(sent.contentType()).isEqualTo("application/vnd.schemaregistry.v1+json");
        assertThat(new Schema.Parser().parse(json.readTree(sent.body()).get("schema").asText())).isEqualTo(ORDER);
    }

    @Test
    void shouldCacheIdsSoASecondRegistrationSendsNothing() {
        registry.register("orders-value", ORDER);
        registry.register("orders-value", ORDER);
        assertThat(requests).hasSize(1);
    }

    @Test
    void shouldFetchASchemaById() {
        assertThat(registry.schemaById(1)).isEqualTo(ORDER);
    }

    @Test
    void shouldMapA404ForAnUnknownIdToSchemaNotFound() {
        assertThatThrownBy(() -> registry.schemaById(99)).isInstanceOf(SchemaNotFoundException.class)
                .hasMessageContaining("Schema 99 not found").hasMessageContaining("40403");
    }

    @Test
    void shouldReadTheLatestVersion() {
        assertThat(registry.latest("orders-value")).hasValue(new RegisteredSchema("orders-value", 1, 3, ORDER));
    }

    @Test
    void shouldAnswerEmptyForTheLatestOfAnUnknownSubject() {
        assertThat(registry.latest("missing-value")).isEmpty();
    }

    @Test
    void shouldMapA409ToIncompatibleSchema() {
        assertThatThrownBy(() -> registry.register("incompatible-value", ORDER)).isInstanceOf(IncompatibleSchemaException.class)
                .hasMessageContaining("incompatible with an earlier schema");
    }

    @Test
    void shouldMapA422ToInvalidSchema() {
        assertThatThrownBy(() -> registry.register("invalid-value", ORDER)).isInstanceOf(InvalidSchemaException.class)
                .hasMessageContaining("42201");
    }

    @Test
    void shouldMapA500ToTheRetriableUnavailableError() {
        assertThatThrownBy(() -> registry.register("down-value", ORDER)).isInstanceOf(SchemaRegistryUnavailableException.class)
                .isInstanceOf(RetriableException.class).hasMessageContaining("50001");
    }

    @Test
    void shouldReportCompatibilityAgainstTheLatestVersion() {
        assertThat(registry.isCompatible("orders-value", ORDER)).isTrue();
        assertThat(registry.isCompatible("incompatible-value", ORDER)).isFalse();
        assertThat(registry.isCompatible("missing-value", ORDER)).as("no versions yet").isTrue();
    }

    @Test
    void shouldReportAnUnreachableRegistryAsUnavailable() {
        server.stop(0);
        assertThatThrownBy(() -> registry.schemaById(5)).isInstanceOf(SchemaRegistryUnavailableException.class);
    }

    private void answer(HttpExchange exchange, JsonNode recorded) throws IOException {
        String line = exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawPath();
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        requests.add(new Request(line, exchange.getRequestHeaders().getFirst("Content-Type"), body));
        JsonNode answer = recorded.get(line);
        int status = answer == null ? 404 : answer.get("status").asInt();
        byte[] out = (answer == null ? "{\"error_code\":404,\"message\":\"HTTP 404 Not Found\"}" : answer.get("body").toString())
                .getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/vnd.schemaregistry.v1+json");
        exchange.sendResponseHeaders(status, out.length);
        try (OutputStream os = exchange.getResponseBody()) {
            os.write(out);
        }
    }
}
