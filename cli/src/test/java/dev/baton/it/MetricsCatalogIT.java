package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.baton.cli.DemoHandlers;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.metrics.BatonMetric;
import dev.baton.morsel.MorselMetrics;
import dev.baton.testkit.LocalCluster;
import dev.baton.worker.WorkerOptions;
import io.micrometer.core.instrument.Meter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/** Every baton_* meter a running cluster registers is in the catalog, and every catalog entry is registered. */
class MetricsCatalogIT {

    @Test
    void shouldRegisterExactlyTheCatalogAndExposeValidPrometheusText() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
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

            Set<String> registered = registry.getMeters().stream().map(m -> m.getId().getName())
                    .filter(n -> n.startsWith("baton_")).collect(Collectors.toSet());
            Set<String> catalog = Arrays.stream(BatonMetric.values()).map(BatonMetric::meterName).collect(Collectors.toSet());
            assertThat(registered).isEqualTo(catalog);
            for (Meter m : registry.getMeters()) {
                if (m.getId().getName().startsWith("baton_")) {
                    BatonMetric entry = BatonMetric.byMeterName(m.getId().getName());
                    assertThat(m.getId().getTags().stream().map(t -> t.getKey()).toList()).as(entry.meterName())
                            .containsExactlyInAnyOrderElementsOf(entry.tagKeys());
                }
            }
            String exposition = registry.scrape();
            assertThat(exposition).contains("baton_outcomes_total{kind=\"completed\"}", "baton_outcomes_total{kind=\"terminal\"}");
            promtoolCheck(exposition);
        }
    }

    /** CI sets BATON_PROMTOOL when promtool is installed; elsewhere the format check is skipped. */
    private static void promtoolCheck(String exposition) throws Exception {
        String promtool = System.getenv("BATON_PROMTOOL");
        if (promtool == null || promtool.isBlank()) {
            return;
        }
        Path file = Files.createTempFile("baton-metrics", ".prom");
        try {
            Files.writeString(file, exposition);
            Process p = new ProcessBuilder(promtool, "check", "metrics").redirectInput(file.toFile()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), UTF_8);
            assertThat(p.waitFor()).as(out).isZero();
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
