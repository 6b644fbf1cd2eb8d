package dev.baton.schemas.registry;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/**
 * A client of the Confluent Schema Registry REST API ({@code http(s)://}); works with Confluent,
 * Apicurio's {@code /apis/ccompat/v7}, Karapace and Baton's own {@link SchemaRegistryRestServer}.
 * Only the calls Baton needs: register, schema by id, subjects and their versions, lookup,
 * compatibility against latest.
 *
 * <p>Errors map from the API's {@code error_code}: 404xx → {@link SchemaNotFoundException}, 409 →
 * {@link IncompatibleSchemaException}, 422xx → {@link InvalidSchemaException}, 5xx and I/O →
 * {@link SchemaRegistryUnavailableException}.
 */
final class ConfluentRestSchemaRegistry implements SchemaRegistry {

    static final String BASIC_AUTH_USER_INFO = "basic.auth.user.info";
    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final String ACCEPT = "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, application/json";
    private static final int SUBJECT_NOT_FOUND = 40401;

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final String base;
    private final String authorization;

    ConfluentRestSchemaRegistry(URI baseUri, String basicAuthUserInfo) {
        String b = baseUri.toString();
        this.base = b.endsWith("/") ? b.substring(0, b.length() - 1) : b;
        this.authorization = basicAuthUserInfo == null ? null
                : "Basic " + Base64.getEncoder().encodeToString(basicAuthUserInfo.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public int register(String subject, Schema schema) {
        JsonNode body = send("POST", "/subjects/" + encode(subject) + "/versions", schemaBody(schema));
        return body.path("id").asInt();
    }

    @Override
    public Schema schemaById(int id) {
        return parse(send("GET", "/schemas/ids/" + id, null).path("schema").asText());
    }

    @Override
    public Optional<RegisteredSchema> latest(String subject) {
        try {
            return Optional.of(registered(sendRaw("GET", "/subjects/" + encode(subject) + "/versions/latest", null), subject));
        } catch (RegistryErrorException e) {
            if (e.errorCode == SUBJECT_NOT_FOUND) {
                return Optional.empty();
            }
            throw e.toTyped();
        }
    }

    @Override
    public boolean isCompatible(String subject, Schema schema) {
        try {
            JsonNode body = sendRaw("POST", "/compatibility/subjects/" + encode(subject) + "/versions/latest", schemaBody(schema));
            return body.path("is_compatible").asBoolean(false);
        } catch (RegistryErrorException e) {
            if (e.errorCode == SUBJECT_NOT_FOUND) {
                return true; // nothing registered yet: anything is compatible
            }
            throw e.toTyped();
        }
    }

    @Override
    public List<String> subjects() {
        List<String> subjects = new ArrayList<>();
        send("GET", "/subjects", null).forEach(s -> subjects.add(s.asText()));
        return subjects;
    }

    @Override
    public List<RegisteredSchema> versions(String subject) {
        JsonNode numbers;
        try {
            numbers = sendRaw("GET", "/subjects/" + encode(subject) + "/versions", null);
        } catch (RegistryErrorException e) {
            if (e.errorCode == SUBJECT_NOT_FOUND) {
                return List.of();
            }
            throw e.toTyped();
        }
        List<RegisteredSchema> versions = new ArrayList<>();
        for (JsonNode n : numbers) {
            versions.add(registered(send("GET", "/subjects/" + encode(subject) + "/versions/" + n.asInt(), null), subject));
        }
        return versions;
    }

    @Override
    public Optional<RegisteredSchema> lookup(String subject, Schema schema) {
        try {
            return Optional.of(registered(sendRaw("POST", "/subjects/" + encode(subject), schemaBody(schema)), subject));
        } catch (RegistryErrorException e) {
            if (e.status == 404) {
                return Optional.empty();
            }
            throw e.toTyped();
        }
    }

    private static RegisteredSchema registered(JsonNode body, String subject) {
        return new RegisteredSchema(body.path("subject").asText(subject), body.path("id").asInt(),
                body.path("version").asInt(), parse(body.path("schema").asText()));
    }

    @Override
    public void close() {
        // HttpClient holds no resources that need closing on Java 17.
    }

    private String schemaBody(Schema schema) {
        ObjectNode node = json.createObjectNode();
        node.put("schema", schema.toString());
        return node.toString();
    }

    private JsonNode send(String method, String path, String body) {
        try {
            return sendRaw(method, path, body);
        } catch (RegistryErrorException e) {
            throw e.toTyped();
        }
    }

    private JsonNode sendRaw(String method, String path, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(30))
                .header("Accept", ACCEPT)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", CONTENT_TYPE);
        }
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new SchemaRegistryUnavailableException(method + " " + base + path + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchemaRegistryUnavailableException(method + " " + base + path + " interrupted", e);
        }
        JsonNode node = readJson(response.body());
        if (response.statusCode() / 100 == 2) {
            return node;
        }
        throw new RegistryErrorException(response.statusCode(), node.path("error_code").asInt(response.statusCode()),
                method + " " + path + " answered " + response.statusCode() + ": " + node.path("message").asText(response.body()));
    }

    private JsonNode readJson(String body) {
        try {
            return body == null || body.isBlank() ? json.createObjectNode() : json.readTree(body);
        } catch (IOException e) {
            return json.createObjectNode().put("message", body);
        }
    }

    private static Schema parse(String text) {
        try {
            return new Schema.Parser().parse(text);
        } catch (SchemaParseException e) {
            throw new InvalidSchemaException("the registry returned a schema that does not parse: " + e.getMessage());
        }
    }

    private static String encode(String subject) {
        return URLEncoder.encode(subject, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** An error answer, kept untyped until a caller decides whether it is expected. */
    private static final class RegistryErrorException extends RuntimeException {
        private final int status;
        private final int errorCode;

        RegistryErrorException(int status, int errorCode, String message) {
            super(message);
            this.status = status;
            this.errorCode = errorCode;
        }

        RuntimeException toTyped() {
            if (status == 404) {
                return new SchemaNotFoundException(getMessage() + " (error_code " + errorCode + ")");
            }
            if (status == 409) {
                return new IncompatibleSchemaException(getMessage() + " (error_code " + errorCode + ")");
            }
            if (status == 422) {
                return new InvalidSchemaException(getMessage() + " (error_code " + errorCode + ")");
            }
            if (status >= 500 || status == 408 || status == 429) {
                return new SchemaRegistryUnavailableException(getMessage() + " (error_code " + errorCode + ")", null);
            }
            return new SchemaRegistryException(getMessage() + " (error_code " + errorCode + ")");
        }
    }
}
