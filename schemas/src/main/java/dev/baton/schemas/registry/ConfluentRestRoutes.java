package dev.baton.schemas.registry;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.topics.BatonSubjects;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;

/**
 * The Confluent Schema Registry REST API over any {@link SchemaRegistry}: maps a method, the path's
 * decoded segments and a JSON body to a JSON answer, or throws {@link RestApiError}. No HTTP here,
 * so every route is testable without a socket; {@link SchemaRegistryRestServer} carries the bytes.
 *
 * <p>Only AVRO schemas without references, and one compatibility level, BACKWARD (Baton's rule):
 * setting another is refused. Nothing is ever deleted, because ids name data already on disk.
 */
final class ConfluentRestRoutes {

    static final String COMPATIBILITY = "BACKWARD";

    private final SchemaRegistry registry;
    private final ObjectMapper json = new ObjectMapper();

    ConfluentRestRoutes(SchemaRegistry registry) {
        this.registry = registry;
    }

    /** The answer to one request; {@code path} is the list of decoded segments ("/subjects/a" is [subjects, a]). */
    JsonNode answer(String method, List<String> path, Map<String, String> query, JsonNode body) {
        String root = path.isEmpty() ? "" : path.get(0);
        switch (root) {
            case "":
                return json.createObjectNode();
            case "subjects":
                return subjects(method, path, body);
            case "schemas":
                return schemas(method, path);
            case "compatibility":
                return compatibility(method, path, query, body);
            case "config":
                return config(method, body);
            case "mode":
                requireMethod(method, "GET");
                return json.createObjectNode().put("mode", "READWRITE");
            default:
                throw notFound(path);
        }
    }

    private JsonNode subjects(String method, List<String> path, JsonNode body) {
        if (path.size() == 1) {
            requireMethod(method, "GET");
            return array(registry.subjects());
        }
        String subject = path.get(1);
        if (path.size() == 2) {
            requireMethod(method, "POST");
            Schema schema = schemaOf(body);
            requireSubject(subject);
            return registry.lookup(subject, schema).map(this::describe)
                    .orElseThrow(() -> RestApiError.notFound(RestApiError.SCHEMA_NOT_FOUND, "Schema not found under subject '" + subject + "'"));
        }
        if (!"versions".equals(path.get(2)) || path.size() > 5) {
            throw notFound(path);
        }
        if (path.size() == 3) {
            if ("POST".equals(method)) {
                Schema schema = schemaOf(body);
                Optional<String> batons = BatonSubjects.refusal(subject, schema);
                if (batons.isPresent()) {
                    // A foreign schema there first would make Baton's own registration fail, and the dispatches needing it.
                    throw new RestApiError(409, 409, batons.get());
                }
                int id = registry.register(subject, schema);
                return json.createObjectNode().put("id", id);
            }
            requireMethod(method, "GET");
            ArrayNode versions = json.createArrayNode();
            requireSubject(subject).forEach(v -> versions.add(v.version()));
            return versions;
        }
        requireMethod(method, "GET");
        RegisteredSchema version = version(subject, path.get(3));
        if (path.size() == 5) {
            if (!"schema".equals(path.get(4))) {
                throw notFound(path);
            }
            return rawSchema(version.schema());
        }
        return describe(version);
    }

    private JsonNode schemas(String method, List<String> path) {
        requireMethod(method, "GET");
        if (path.size() == 2 && "types".equals(path.get(1))) {
            return json.createArrayNode().add("AVRO");
        }
        if (path.size() < 3 || path.size() > 4 || !"ids".equals(path.get(1))) {
            throw notFound(path);
        }
        int id = intOrThrow(path.get(2), RestApiError.SCHEMA_NOT_FOUND, "schema id must be an integer, was '" + path.get(2) + "'");
        Schema schema;
        try {
            schema = registry.schemaById(id);
        } catch (SchemaNotFoundException e) {
            throw RestApiError.notFound(RestApiError.SCHEMA_NOT_FOUND, "Schema " + id + " not found");
        }
        if (path.size() == 3) {
            return json.createObjectNode().put("schema", schema.toString());
        }
        switch (path.get(3)) {
            case "schema":
                return rawSchema(schema);
            case "subjects":
                return array(usesOf(id).stream().map(RegisteredSchema::subject).distinct().toList());
            case "versions":
                ArrayNode uses = json.createArrayNode();
                usesOf(id).forEach(v -> uses.addObject().put("subject", v.subject()).put("version", v.version()));
                return uses;
            default:
                throw notFound(path);
        }
    }

    private JsonNode compatibility(String method, List<String> path, Map<String, String> query, JsonNode body) {
        requireMethod(method, "POST");
        if (path.size() < 4 || path.size() > 5 || !"subjects".equals(path.get(1)) || !"versions".equals(path.get(3))) {
            throw notFound(path);
        }
        String subject = path.get(2);
        Schema schema = schemaOf(body);
        requireSubject(subject);
        RegisteredSchema against = version(subject, path.size() == 5 ? path.get(4) : "latest");
        Optional<String> why = SchemaEvolution.backwardIncompatibilities(schema, against.schema());
        ObjectNode answer = json.createObjectNode().put("is_compatible", why.isEmpty());
        if ("true".equalsIgnoreCase(query.get("verbose"))) {
            ArrayNode messages = answer.putArray("messages");
            why.ifPresent(w -> messages.add("not " + COMPATIBILITY + " compatible with version " + against.version() + ": " + w));
        }
        return answer;
    }

    /** Global and per-subject configuration: always BACKWARD; PUT accepts only that. */
    private JsonNode config(String method, JsonNode body) {
        if ("PUT".equals(method)) {
            String level = body == null ? "" : body.path("compatibility").asText("");
            if (!COMPATIBILITY.equalsIgnoreCase(level)) {
                throw RestApiError.unprocessable(RestApiError.INVALID_COMPATIBILITY_LEVEL,
                        "compatibility must be " + COMPATIBILITY + " (Baton's one rule), was '" + level + "'");
            }
            return json.createObjectNode().put("compatibility", COMPATIBILITY);
        }
        requireMethod(method, "GET");
        return json.createObjectNode().put("compatibilityLevel", COMPATIBILITY);
    }

    private List<RegisteredSchema> usesOf(int id) {
        return registry.subjects().stream().flatMap(s -> registry.versions(s).stream()).filter(v -> v.id() == id).toList();
    }

    private List<RegisteredSchema> requireSubject(String subject) {
        List<RegisteredSchema> versions = registry.versions(subject);
        if (versions.isEmpty()) {
            throw RestApiError.notFound(RestApiError.SUBJECT_NOT_FOUND, "Subject '" + subject + "' not found.");
        }
        return versions;
    }

    /** A version by number (from 1), or {@code latest} / {@code -1}. */
    private RegisteredSchema version(String subject, String version) {
        List<RegisteredSchema> versions = requireSubject(subject);
        if ("latest".equals(version) || "-1".equals(version)) {
            return versions.get(versions.size() - 1);
        }
        int n = intOrThrow(version, RestApiError.INVALID_VERSION,
                "version must be 'latest', -1 or an integer from 1, was '" + version + "'");
        if (n < 1) {
            throw RestApiError.unprocessable(RestApiError.INVALID_VERSION, "version must be 'latest', -1 or an integer from 1, was " + n);
        }
        if (n > versions.size()) {
            throw RestApiError.notFound(RestApiError.VERSION_NOT_FOUND, "Version " + n + " not found (subject '" + subject
                    + "' has " + versions.size() + ")");
        }
        return versions.get(n - 1);
    }

    private Schema schemaOf(JsonNode body) {
        if (body == null || !body.path("schema").isTextual()) {
            throw RestApiError.unprocessable(RestApiError.INVALID_SCHEMA, "the body must be a JSON object with a string field 'schema'");
        }
        String type = body.path("schemaType").asText("AVRO");
        if (!"AVRO".equals(type)) {
            throw RestApiError.unprocessable(RestApiError.INVALID_SCHEMA, "schemaType must be AVRO, was '" + type + "'");
        }
        if (body.path("references").size() > 0) {
            throw RestApiError.unprocessable(RestApiError.INVALID_SCHEMA, "schema references are not supported, got "
                    + body.path("references").size() + "; inline the named types");
        }
        try {
            return new Schema.Parser().parse(body.path("schema").asText());
        } catch (AvroRuntimeException | NullPointerException | IllegalArgumentException e) {
            throw RestApiError.unprocessable(RestApiError.INVALID_SCHEMA, "Invalid schema: " + e.getMessage());
        }
    }

    private ObjectNode describe(RegisteredSchema version) {
        return json.createObjectNode().put("subject", version.subject()).put("version", version.version())
                .put("id", version.id()).put("schema", version.schema().toString());
    }

    private JsonNode rawSchema(Schema schema) {
        try {
            return json.readTree(schema.toString());
        } catch (IOException e) {
            throw new IllegalStateException("Avro wrote a schema that is not JSON: " + e.getMessage(), e);
        }
    }

    private ArrayNode array(List<String> values) {
        ArrayNode array = json.createArrayNode();
        values.forEach(array::add);
        return array;
    }

    private static int intOrThrow(String text, int errorCode, String message) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw errorCode == RestApiError.SCHEMA_NOT_FOUND ? RestApiError.notFound(errorCode, message) : RestApiError.unprocessable(errorCode, message);
        }
    }

    private static void requireMethod(String method, String expected) {
        if (!expected.equals(method)) {
            throw new RestApiError(405, 405, "HTTP method " + method + " not allowed here, only " + expected
                    + (method.equals("DELETE") ? " (Baton never deletes a schema: its id names data already written)" : ""));
        }
    }

    private static RestApiError notFound(List<String> path) {
        return RestApiError.notFound(404, "no such resource: /" + String.join("/", path));
    }
}
