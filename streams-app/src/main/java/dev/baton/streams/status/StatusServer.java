package dev.baton.streams.status;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/** Serves {@link StatusReport} as {@code GET /status}; read by {@code baton status}. */
public final class StatusServer implements AutoCloseable {

    private final ObjectMapper json = new ObjectMapper();
    private final HttpServer server;
    private final StatusReport report;

    public StatusServer(int port, StatusReport report) {
        this.report = report;
        try {
            server = HttpServer.create(new InetSocketAddress(port), 0);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve status on port " + port + ": " + e.getMessage(), e);
        }
        server.createContext("/status", this::answer);
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private void answer(HttpExchange exchange) throws IOException {
        byte[] body;
        int code = 200;
        try {
            body = json.writerWithDefaultPrettyPrinter().writeValueAsBytes(report.snapshot());
        } catch (RuntimeException e) {
            code = 503;
            body = json.createObjectNode().put("error", "status unavailable: " + e.getMessage()).toString().getBytes(StandardCharsets.UTF_8);
        }
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(code, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        report.close();
    }
}
