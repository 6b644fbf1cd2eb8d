package dev.baton.schemas.registry;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the Confluent Schema Registry REST API over a {@link SchemaRegistry}, so that Confluent's
 * serializers and clients in any language can register and read schemas of Baton's embedded
 * {@code kafka://} registry unchanged: subjects, versions, ids, lookup, compatibility and config
 * (routes in {@link ConfluentRestRoutes}).
 *
 * <p>Every process that serves it over the same cluster answers the same ids, because each folds the
 * same {@code _baton_schemas} topic; a client may use any of them. Example:
 * <pre>{@code
 * try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://localhost:9092", Map.of());
 *      SchemaRegistryRestServer rest = SchemaRegistryRestServer.start(registry, 8081)) {
 *     // http://localhost:8081 now answers GET /subjects, POST /subjects/{s}/versions, ...
 * }
 * }</pre>
 *
 * <p>Thread-safe; requests run on two daemon threads. {@link #close()} stops serving, not the registry.
 */
public final class SchemaRegistryRestServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SchemaRegistryRestServer.class);
    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final int MAX_BODY_BYTES = 4 * 1024 * 1024;

    private final HttpServer server;
    private final ExecutorService pool;
    private final ConfluentRestRoutes routes;
    private final ObjectMapper json = new ObjectMapper();

    private SchemaRegistryRestServer(HttpServer server, SchemaRegistry registry) {
        this.server = server;
        this.routes = new ConfluentRestRoutes(registry);
        AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "baton-registry-rest-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        server.createContext("/", this::handle);
        server.setExecutor(pool);
    }

    /**
     * Binds {@code port} on every interface (0 for any free port) and serves {@code registry}.
     *
     * @throws IOException if the port cannot be bound (in use, or not allowed)
     */
    public static SchemaRegistryRestServer start(SchemaRegistry registry, int port) throws IOException {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("registry REST port must be in [0, 65535], was " + port);
        }
        SchemaRegistryRestServer rest = new SchemaRegistryRestServer(HttpServer.create(new InetSocketAddress(port), 0), registry);
        rest.server.start();
        log.info("schema registry REST API (Confluent-compatible) on http://localhost:{}", rest.port());
        return rest;
    }

    /** The bound port. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** The URL a client on this host uses. */
    public String url() {
        return "http://localhost:" + port();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            int status = 200;
            JsonNode answer;
            try {
                answer = routes.answer(exchange.getRequestMethod(), segments(exchange.getRequestURI().getRawPath()),
                        query(exchange.getRequestURI().getRawQuery()), body(exchange));
            } catch (RestApiError e) {
                status = e.status();
                answer = error(e.errorCode(), e.getMessage());
            } catch (IncompatibleSchemaException e) {
                status = 409;
                answer = error(409, e.getMessage());
            } catch (InvalidSchemaException e) {
                status = 422;
                answer = error(RestApiError.INVALID_SCHEMA, e.getMessage());
            } catch (RuntimeException e) {
                log.warn("registry REST {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
                status = 500;
                answer = error(RestApiError.STORE_ERROR, "the registry failed: " + e);
            }
            byte[] bytes = json.writeValueAsBytes(answer);
            exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    private JsonNode error(int errorCode, String message) {
        return json.createObjectNode().put("error_code", errorCode).put("message", message);
    }

    private JsonNode body(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            byte[] bytes = in.readNBytes(MAX_BODY_BYTES + 1);
            if (bytes.length > MAX_BODY_BYTES) {
                throw RestApiError.unprocessable(RestApiError.INVALID_SCHEMA, "the body must be at most " + MAX_BODY_BYTES + " bytes");
            }
            if (bytes.length == 0) {
                return null;
            }
            try {
                return json.readTree(bytes);
            } catch (IOException e) {
                throw RestApiError.unprocessable(RestApiError.INVALID_SCHEMA, "the body is not JSON: " + e.getMessage());
            }
        }
    }

    /** Decodes each segment on its own, so a subject holding an encoded '/' stays one segment. */
    static List<String> segments(String rawPath) {
        List<String> segments = new ArrayList<>();
        for (String s : (rawPath == null ? "" : rawPath).split("/")) {
            if (!s.isEmpty()) {
                segments.add(decode(s));
            }
        }
        return segments;
    }

    private static Map<String, String> query(String rawQuery) {
        Map<String, String> query = new HashMap<>();
        if (rawQuery != null) {
            for (String pair : rawQuery.split("&")) {
                int eq = pair.indexOf('=');
                query.put(decode(eq < 0 ? pair : pair.substring(0, eq)), eq < 0 ? "" : decode(pair.substring(eq + 1)));
            }
        }
        return query;
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
