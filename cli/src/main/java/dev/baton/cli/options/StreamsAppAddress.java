package dev.baton.cli.options;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import picocli.CommandLine.Option;

/**
 * Where a command reaches the streams app's query API: any one instance will do, it answers for all
 * (forwarding a site lookup to the instance that owns the site's partition).
 */
public final class StreamsAppAddress {

    /** An answer of the query API: the HTTP status and the JSON body. */
    public record Answer(int status, JsonNode body) {
        public boolean ok() {
            return status == 200;
        }

        /** The {@code error} the API gave, else the status. */
        public String error() {
            return body.path("error").asText("HTTP " + status);
        }
    }

    @Option(names = "--streams-app", paramLabel = "URL", defaultValue = "http://localhost:9402",
            description = "Any streams app instance's HTTP port (baton streams-app --metrics-port, or status.port) (default ${DEFAULT-VALUE})")
    URI base;

    private final ObjectMapper json = new ObjectMapper();

    /** Points at another instance's base URL (its path is dropped). */
    public void base(URI url) {
        this.base = url.resolve("/");
    }

    /**
     * GETs {@code pathAndQuery} (already URL-encoded).
     *
     * @throws IllegalStateException naming the URL when the streams app cannot be reached
     */
    public Answer get(String pathAndQuery) throws InterruptedException {
        URI uri = base.resolve(pathAndQuery);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode body = r.body().isBlank() ? json.createObjectNode() : json.readTree(r.body());
            return new Answer(r.statusCode(), body);
        } catch (IOException e) {
            throw new IllegalStateException("cannot reach the streams app at " + uri + " (" + e.getMessage()
                    + "): is it running, and is --streams-app its HTTP port?", e);
        }
    }
}
