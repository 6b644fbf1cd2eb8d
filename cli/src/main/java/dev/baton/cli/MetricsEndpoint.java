package dev.baton.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** Serves a process's meters as Prometheus text on {@code /metrics}. Port 0 = no endpoint. */
public final class MetricsEndpoint implements AutoCloseable {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final HttpServer server;

    public MetricsEndpoint(int port) {
        if (port <= 0) {
            server = null;
            return;
        }
        try {
            server = HttpServer.create(new InetSocketAddress(port), 0);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve metrics on port " + port + ": " + e.getMessage(), e);
        }
        server.createContext("/metrics", exchange -> {
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    @Override
    public void close() {
        if (server != null) {
            server.stop(0);
        }
    }
}
