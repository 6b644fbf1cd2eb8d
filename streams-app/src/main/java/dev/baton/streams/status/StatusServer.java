package dev.baton.streams.status;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;

/**
 * The streams app's own port ({@code status.port}) when it runs without {@code baton streams-app}'s
 * process port (in-process: the testkit, the demo): the query API of {@link StatusHandler} and
 * {@code /health} (200 while the process is up) and {@code /ready} (200 once RUNNING, else 503).
 */
public final class StatusServer implements AutoCloseable {

    private final HttpServer server;

    public StatusServer(int port, HttpHandler queries, BooleanSupplier ready) {
        try {
            server = HttpServer.create(new InetSocketAddress(port), 0);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve status on port " + port + ": " + e.getMessage(), e);
        }
        server.createContext("/", queries);
        server.createContext("/health", exchange -> plain(exchange, 200, "UP"));
        server.createContext("/ready", exchange -> {
            boolean up = ready.getAsBoolean();
            plain(exchange, up ? 200 : 503, up ? "READY" : "NOT READY");
        });
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void plain(HttpExchange exchange, int code, String text) throws IOException {
        byte[] body = (text + "\n").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(code, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
