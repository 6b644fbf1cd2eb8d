package dev.baton.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.baton.metrics.BatonMetric;
import dev.baton.metrics.KafkaClientTags;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;

/**
 * A long-running process's one HTTP port, served by the Prometheus exporter library: {@code /metrics}
 * (the registry: Baton's catalog, JVM and Kafka client meters, {@code baton_build_info}),
 * {@code /health} (200 while the process is up), {@code /ready} (200 once the process says it is
 * ready, 503 before) and, for the streams app, its query API ({@link #serve}). Port 0: no port, the
 * registry still collects.
 */
public final class ProcessEndpoint implements AutoCloseable {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gc = new JvmGcMetrics();
    private final HTTPServer server;
    private volatile BooleanSupplier ready = () -> false;
    private final AtomicReference<HttpHandler> other = new AtomicReference<>();

    public ProcessEndpoint(int port) {
        KafkaClientTags.installOn(registry); // first: a filter applies only to meters registered after it
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        buildInfo(registry);
        if (port <= 0) {
            server = null;
            return;
        }
        try {
            server = HTTPServer.builder().port(port).registry(registry.getPrometheusRegistry())
                    .registerHealthHandler(false).defaultHandler(this::route).buildAndStart();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve metrics on port " + port + ": " + e.getMessage(), e);
        }
    }

    /** {@code baton_build_info}: 1, labelled with Baton's, the Kafka clients' and Java's versions (a Prometheus info metric). */
    public static void buildInfo(PrometheusMeterRegistry registry) {
        BatonMetric info = BatonMetric.BUILD_INFO;
        Info.builder().name(info.meterName()).help(info.description()).labelNames(info.tagKeys().toArray(String[]::new))
                .register(registry.getPrometheusRegistry())
                .setLabelValues(BuildVersion.baton(), BuildVersion.kafkaClients(), Runtime.version().toString());
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** The port, or -1 without one. */
    public int port() {
        return server == null ? -1 : server.getPort();
    }

    /** What {@code /ready} answers from now on. */
    public ProcessEndpoint readiness(BooleanSupplier check) {
        this.ready = check;
        return this;
    }

    /** Serves every path other than /metrics, /health and /ready with {@code handler}. */
    public ProcessEndpoint serve(HttpHandler handler) {
        other.set(handler);
        return this;
    }

    private void route(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        HttpHandler rest = other.get();
        if (path.equals("/health")) {
            plain(exchange, 200, "UP");
        } else if (path.equals("/ready")) {
            boolean up = ready.getAsBoolean();
            plain(exchange, up ? 200 : 503, up ? "READY" : "NOT READY");
        } else if (rest != null) {
            rest.handle(exchange);
        } else {
            plain(exchange, 404, "no such path: " + path + " (this process serves /metrics, /health, /ready)");
        }
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
        if (server != null) {
            server.close();
        }
        gc.close();
    }
}
