package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.baton.cli.DemoHandlers;
import dev.baton.cli.ProcessEndpoint;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.metrics.BatonMetric;
import dev.baton.morsel.MorselMetrics;
import dev.baton.testkit.LocalCluster;
import dev.baton.worker.WorkerOptions;
import io.micrometer.core.instrument.Meter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Every baton_* meter a running cluster registers is in the catalog, and every catalog entry is
 * registered; timers are histograms with buckets; the whole exposition (JVM, Kafka client and Kafka
 * Streams meters included) passes promtool.
 */
class MetricsCatalogIT {

    @Test
    void shouldRegisterExactlyTheCatalogAndExposeValidPrometheusText() throws Exception {
        // A process's registry without its port: JVM binders and baton_build_info, as baton's commands serve them.
        PrometheusMeterRegistry registry = new ProcessEndpoint(0).registry();
        try (LocalCluster cluster = LocalCluster.start(3, List.of("metered"), Map.of(), registry)) {
            WorkerOptions.Builder worker = WorkerOptions.builder().workerId("metered-worker").queues("metered");
            DemoHandlers.all().forEach(worker::handler);
            cluster.worker(worker);
            new MorselMetrics(registry);
            DispatchClient client = cluster.client("metered-client", o -> { });
            for (String type : List.of("echo", "terminal")) {
                client.dispatch(ActivityRequest.builder().site("metrics", type, "1").queue("metered").activityType(type)
                        .input("x".getBytes(UTF_8), "text/plain").build()).get(60, TimeUnit.SECONDS);
            }

            Set<String> catalog = Arrays.stream(BatonMetric.values()).filter(m -> m.type() != BatonMetric.Type.INFO)
                    .map(BatonMetric::meterName).collect(Collectors.toSet());
            // baton_queue_lag appears with the streams app's first lag sample after the queue exists.
            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(registry.getMeters().stream()
                    .map(m -> m.getId().getName()).filter(n -> n.startsWith("baton_")).collect(Collectors.toSet())).isEqualTo(catalog));
            for (Meter m : registry.getMeters()) {
                if (m.getId().getName().startsWith("baton_")) {
                    BatonMetric entry = BatonMetric.byMeterName(m.getId().getName());
                    assertThat(m.getId().getTags().stream().map(t -> t.getKey()).toList()).as(entry.meterName())
                            .containsExactlyInAnyOrderElementsOf(entry.tagKeys());
                }
            }
            String exposition = registry.scrape();
            assertThat(exposition).contains("baton_outcomes_total{activity_type=\"echo\",kind=\"completed\",queue=\"metered\"}",
                    "baton_outcomes_total{activity_type=\"terminal\",kind=\"terminal\",queue=\"metered\"}",
                    "baton_handler_duration_seconds_bucket{activity_type=\"echo\",result=\"completed\",le=\"0.005\"}",
                    "baton_dispatch_latency_seconds_bucket{le=\"+Inf\"}", "baton_worker_leases_total{queue=\"metered\"}",
                    "baton_queue_lag{queue=\"metered\"}", "baton_build_info{", "kafka_stream_", "kafka_producer_", "jvm_");
            assertThat(exposition).as("the worker's own clients by role: its task consumer, its event producer")
                    .containsPattern("kafka_consumer_[a-z_]+\\{[^}]*role=\"worker-tasks/metered\"")
                    .containsPattern("kafka_producer_[a-z_]+\\{[^}]*role=\"worker-events\"");
            assertThat(exposition).as("no client id (a process id) as a Kafka client label").doesNotContain("client_id=")
                    .doesNotContainPattern("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
            assertThat(exposition).as("histograms, not summaries").doesNotContain("quantile=");
            assertThat(exposition).as("no worker or client ids as Baton labels").doesNotContainPattern("baton_[a-z_]+\\{[^}]*(worker|client)=");
            promtoolCheck(exposition);
        }
    }

    /**
     * CI sets BATON_PROMTOOL when promtool is installed; elsewhere the format check is skipped. Baton's
     * own families must pass promtool's lint; the whole exposition must parse (exit 0, or 3 for lint
     * findings), and every lint finding must be about a third-party binder's names (Kafka's
     * {@code *_time_ns_total}, Micrometer's {@code system_cpu_count}), never a {@code baton_} one.
     */
    private static void promtoolCheck(String exposition) throws Exception {
        String promtool = System.getenv("BATON_PROMTOOL");
        if (promtool == null || promtool.isBlank()) {
            return;
        }
        Result batonOnly = promtool(promtool, batonFamilies(exposition));
        assertThat(batonOnly.exit()).as(batonOnly.output()).isZero();
        Result all = promtool(promtool, exposition);
        assertThat(all.exit()).as(all.output()).isIn(0, 3);
        assertThat(all.output().lines().filter(l -> l.startsWith("baton_"))).as(all.output()).isEmpty();
    }

    private record Result(int exit, String output) { }

    private static Result promtool(String promtool, String exposition) throws Exception {
        Path file = Files.createTempFile("baton-metrics", ".prom");
        try {
            Files.writeString(file, exposition);
            Process p = new ProcessBuilder(promtool, "check", "metrics").redirectInput(file.toFile()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), UTF_8);
            return new Result(p.waitFor(), out);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** The lines of the exposition that belong to baton_* families (samples and their HELP/TYPE comments). */
    private static String batonFamilies(String exposition) {
        return exposition.lines().filter(l -> l.startsWith("baton_") || l.startsWith("# HELP baton_") || l.startsWith("# TYPE baton_"))
                .collect(Collectors.joining("\n", "", "\n"));
    }
}
