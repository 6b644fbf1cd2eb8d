package dev.baton.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Confluent REST API over a {@code mem://} registry, spoken over real HTTP on a free port. */
class SchemaRegistryRestServerTest {

    private static final String ORDER = "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"it.baton\","
            + "\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}";
    private static final String ORDER_SPACED = "{\n  \"namespace\" : \"it.baton\",\n  \"type\" : \"record\", \"name\" : \"Order\",\n"
            + "  \"fields\" : [ { \"type\" : \"long\", \"name\" : \"id\" } ]\n}";
    private static final String ORDER_V2 = "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"it.baton\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"note\",\"type\":\"string\",\"default\":\"\"}]}";
    private static final String ORDER_BREAKING = "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"it.baton\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"total\",\"type\":\"long\"}]}";

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();
    private SchemaRegistry backend;
    private SchemaRegistryRestServer server;

    private record Answer(int status, JsonNode body) {
    }

    @BeforeEach
    void start() throws IOException {
        backend = SchemaRegistry.forUrl("mem://" + UUID.randomUUID(), Map.of());
        server = SchemaRegistryRestServer.start(backend, 0);
    }

    @AfterEach
    void stop() {
        server.close();
        backend.close();
    }

    @Test
    void shouldRegisterAndReadBackBySubjectVersionAndId() throws Exception {
        int id = register("orders-value", ORDER).body().path("id").asInt();

        assertThat(get("/subjects").body()).hasToString("[\"orders-value\"]");
        assertThat(get("/subjects/orders-value/versions").body()).hasToString("[1]");
        JsonNode latest = get("/subjects/orders-value/versions/latest").body();
        assertThat(latest.path("id").asInt()).isEqualTo(id);
        assertThat(latest.path("version").asInt()).isEqualTo(1);
        assertThat(latest.path("subject").asText()).isEqualTo("orders-value");
        assertThat(new Schema.Parser().parse(get("/schemas/ids/" + id).body().path("schema").asText()))
                .isEqualTo(new Schema.Parser().parse(ORDER));
        assertThat(get("/schemas/ids/" + id + "/versions").body()).hasToString("[{\"subject\":\"orders-value\",\"version\":1}]");
        assertThat(get("/subjects/orders-value/versions/1/schema").body().path("name").asText()).isEqualTo("Order");
    }

    @Test
    void shouldRefuseARegistrationUnderASubjectOfBatonsNamingTheSubjectAndTheSchemaItMustHold() throws Exception {
        String squat = "{\"type\":\"record\",\"name\":\"Squat\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}";
        for (String subject : java.util.List.of("baton.tasks.advsq-value", "baton.tasks.advsq.gpu-value", "baton.dispatch-value",
                "baton.worker-events-value", "baton.results-value")) {
            Answer refused = register(subject, squat);

            assertThat(refused.status()).as(subject).isEqualTo(409);
            assertThat(refused.body().path("error_code").asInt()).isEqualTo(409);
            assertThat(refused.body().path("message").asText()).contains("'" + subject + "'").contains("dev.baton.events.");
        }
        assertThat(register("baton.tasks.advsq-value", squat).body().path("message").asText())
                .contains("must hold dev.baton.events.ActivityTask");
        assertThat(backend.subjects()).as("nothing registered").isEmpty();
        assertThat(register("baton.tasks.advsq-key", squat).status()).as("not a subject Baton writes").isEqualTo(200);
    }

    @Test
    void shouldRefuseEveryRegistrationUnderAnEngineExchangeSubject() throws Exception {
        String squat = "{\"type\":\"record\",\"name\":\"Squat\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}";
        String own = org.apache.avro.SchemaNormalization.toParsingForm(dev.baton.events.ActivityTask.getClassSchema());
        for (String schema : java.util.List.of(squat, own)) {
            Answer refused = register("baton.exchange.job-7-value", schema);

            assertThat(refused.status()).isEqualTo(409);
            assertThat(refused.body().path("error_code").asInt()).isEqualTo(409);
            assertThat(refused.body().path("message").asText()).contains("'baton.exchange.job-7-value'", "exchange", "not Avro");
        }
        assertThat(backend.subjects()).as("nothing registered").isEmpty();
    }

    @Test
    void shouldAcceptBatonsOwnSchemaUnderItsSubjectInAnyTextAndRefuseAnImpostorOfTheSameName() throws Exception {
        String own = org.apache.avro.SchemaNormalization.toParsingForm(dev.baton.events.ActivityTask.getClassSchema());
        Answer accepted = register("baton.tasks.node-value", own);
        assertThat(accepted.status()).as("what a Confluent serializer in another language registers").isEqualTo(200);
        assertThat(accepted.body().path("id").asInt()).isEqualTo(backend.register("baton.tasks.node-value",
                dev.baton.events.ActivityTask.getClassSchema()));

        String impostor = "{\"type\":\"record\",\"name\":\"ActivityTask\",\"namespace\":\"dev.baton.events\","
                + "\"fields\":[{\"name\":\"surprise\",\"type\":\"int\"}]}";
        Answer refused = register("baton.tasks.other-value", impostor);
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.body().path("message").asText()).contains("'baton.tasks.other-value'", "cannot");
        assertThat(backend.subjects()).doesNotContain("baton.tasks.other-value");
    }

    @Test
    void shouldGiveTheSameIdToTheSameSchemaWithOtherWhitespaceAndKeyOrder() throws Exception {
        int id = register("orders-value", ORDER).body().path("id").asInt();

        assertThat(register("orders-value", ORDER_SPACED).body().path("id").asInt()).isEqualTo(id);
        assertThat(register("other-value", ORDER_SPACED).body().path("id").asInt()).as("ids are global").isEqualTo(id);
        assertThat(get("/subjects/orders-value/versions").body()).as("no second version").hasToString("[1]");
        Answer lookup = post("/subjects/orders-value", body(ORDER_SPACED));
        assertThat(lookup.status()).isEqualTo(200);
        assertThat(lookup.body().path("id").asInt()).isEqualTo(id);
    }

    @Test
    void shouldRefuseAnIncompatibleChangeAndAcceptACompatibleOne() throws Exception {
        register("orders-value", ORDER);

        Answer check = post("/compatibility/subjects/orders-value/versions/latest?verbose=true", body(ORDER_BREAKING));
        assertThat(check.body().path("is_compatible").asBoolean()).isFalse();
        assertThat(check.body().path("messages").get(0).asText()).contains("total");
        assertThat(post("/compatibility/subjects/orders-value/versions/1", body(ORDER_V2)).body().path("is_compatible").asBoolean()).isTrue();

        Answer refused = register("orders-value", ORDER_BREAKING);
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.body().path("error_code").asInt()).isEqualTo(409);
        assertThat(refused.body().path("message").asText()).contains("BACKWARD");
        assertThat(register("orders-value", ORDER_V2).status()).isEqualTo(200);
        assertThat(get("/subjects/orders-value/versions").body()).hasToString("[1,2]");
    }

    @Test
    void shouldAnswerErrorsWithConfluentErrorCodes() throws Exception {
        register("orders-value", ORDER);

        assertThat(get("/subjects/nope/versions")).satisfies(a -> assertError(a, 404, 40401));
        assertThat(get("/subjects/orders-value/versions/9")).satisfies(a -> assertError(a, 404, 40402));
        assertThat(get("/subjects/orders-value/versions/zero")).satisfies(a -> assertError(a, 422, 42202));
        assertThat(get("/schemas/ids/424242")).satisfies(a -> assertError(a, 404, 40403));
        assertThat(post("/subjects/orders-value", body(ORDER_BREAKING))).satisfies(a -> assertError(a, 404, 40403));
        assertThat(register("orders-value", "{\"type\":\"record\"")).satisfies(a -> assertError(a, 422, 42201));
        assertThat(post("/subjects/x-value/versions", "{\"schema\":\"{}\",\"schemaType\":\"PROTOBUF\"}"))
                .satisfies(a -> assertError(a, 422, 42201));
        assertThat(send("DELETE", "/subjects/orders-value", null)).satisfies(a -> assertThat(a.status()).isEqualTo(405));
    }

    @Test
    void shouldServeBackwardAsTheOnlyCompatibilityLevel() throws Exception {
        assertThat(get("/config").body().path("compatibilityLevel").asText()).isEqualTo("BACKWARD");
        assertThat(send("PUT", "/config", "{\"compatibility\":\"BACKWARD\"}").status()).isEqualTo(200);
        assertThat(send("PUT", "/config/orders-value", "{\"compatibility\":\"NONE\"}")).satisfies(a -> assertError(a, 422, 42203));
        assertThat(get("/schemas/types").body()).hasToString("[\"AVRO\"]");
    }

    @Test
    void shouldServeBatonsOwnRestClient() {
        Schema order = SchemaBuilder.record("Order").namespace("it.baton").fields().requiredLong("id").endRecord();
        try (SchemaRegistry client = SchemaRegistry.forUrl(server.url(), Map.of())) {
            int id = client.register("orders-value", order);

            assertThat(backend.register("orders-value", order)).as("the backend agrees").isEqualTo(id);
            assertThat(client.schemaById(id)).isEqualTo(order);
            assertThat(client.latest("orders-value")).hasValueSatisfying(v -> assertThat(v.id()).isEqualTo(id));
            assertThat(client.subjects()).containsExactly("orders-value");
            assertThat(client.lookup("orders-value", order)).hasValueSatisfying(v -> assertThat(v.version()).isEqualTo(1));
            assertThat(client.isCompatible("orders-value", new Schema.Parser().parse(ORDER_BREAKING))).isFalse();
            assertThatThrownBy(() -> client.register("orders-value", new Schema.Parser().parse(ORDER_BREAKING)))
                    .isInstanceOf(IncompatibleSchemaException.class);
        }
    }

    @Test
    void shouldKeepAnEncodedSlashInsideOneSubject() {
        assertThat(SchemaRegistryRestServer.segments("/subjects/a%2Fb+c/versions")).containsExactly("subjects", "a/b+c", "versions");
    }

    private static void assertError(Answer answer, int status, int errorCode) {
        assertThat(answer.status()).isEqualTo(status);
        assertThat(answer.body().path("error_code").asInt()).as(answer.body().toString()).isEqualTo(errorCode);
        assertThat(answer.body().path("message").asText()).isNotBlank();
    }

    private Answer register(String subject, String schema) throws Exception {
        return post("/subjects/" + subject + "/versions", body(schema));
    }

    private String body(String schema) {
        return json.createObjectNode().put("schema", schema).toString();
    }

    private Answer get(String path) throws Exception {
        return send("GET", path, null);
    }

    private Answer post(String path, String body) throws Exception {
        return send("POST", path, body);
    }

    private Answer send(String method, String path, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.url() + path))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.headers().firstValue("Content-Type")).contains("application/vnd.schemaregistry.v1+json");
        return new Answer(response.statusCode(), json.readTree(response.body()));
    }
}
