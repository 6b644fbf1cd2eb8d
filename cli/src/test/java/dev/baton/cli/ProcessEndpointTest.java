package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

class ProcessEndpointTest {

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void shouldAnswerHealthAtOnceAndReadinessOnlyWhenTheProcessSaysSo() throws Exception {
        AtomicBoolean ready = new AtomicBoolean();
        try (ProcessEndpoint endpoint = new ProcessEndpoint(freePort()).readiness(ready::get)) {
            assertThat(get(endpoint.port(), "/health").statusCode()).isEqualTo(200);
            assertThat(get(endpoint.port(), "/ready").statusCode()).isEqualTo(503);
            ready.set(true);
            assertThat(get(endpoint.port(), "/ready").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void shouldServeJvmMetersAndBuildInfoAsPrometheusText() throws Exception {
        try (ProcessEndpoint endpoint = new ProcessEndpoint(freePort())) {
            HttpResponse<String> metrics = get(endpoint.port(), "/metrics");
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.body()).contains("jvm_memory_used_bytes", "jvm_threads_live_threads", "process_uptime_seconds");
            assertThat(metrics.body().lines().filter(l -> l.startsWith("baton_build_info{"))).singleElement().satisfies(line -> assertThat(line)
                    .contains("java=\"" + Runtime.version() + "\"", "kafka_clients=\"" + BuildVersion.kafkaClients() + "\"",
                            "version=\"" + BuildVersion.baton() + "\"").matches(".*\\} 1(\\.0)?$"));
        }
    }

    @Test
    void shouldHandOtherPathsToTheServedHandlerOr404() throws Exception {
        try (ProcessEndpoint endpoint = new ProcessEndpoint(freePort())) {
            assertThat(get(endpoint.port(), "/status").statusCode()).isEqualTo(404);
            endpoint.serve(exchange -> {
                byte[] body = "queries".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            HttpResponse<String> status = get(endpoint.port(), "/status");
            assertThat(status.statusCode()).isEqualTo(200);
            assertThat(status.body()).isEqualTo("queries");
        }
    }
}
