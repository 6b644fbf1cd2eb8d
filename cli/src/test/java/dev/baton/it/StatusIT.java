package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.cli.CliRun;
import dev.baton.cli.DemoHandlers;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.testkit.LocalCluster;
import dev.baton.worker.WorkerOptions;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class StatusIT {

    private static String statusJson(int port) {
        CliRun run = CliRun.of("status", "--streams-app", "http://127.0.0.1:" + port, "-o", "json");
        assertThat(run.exit()).as(run.output()).isZero();
        return run.output();
    }

    @Test
    void shouldServeSitesWorkersUnservedQueuesAndLagAsJson() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (LocalCluster cluster = LocalCluster.start(3, List.of("served", "forgotten"), Map.of("status.port", port))) {
            WorkerOptions.Builder worker = WorkerOptions.builder().workerId("status-worker").queues("served").maxConcurrent(3);
            DemoHandlers.all().forEach(worker::handler);
            cluster.worker(worker);
            DispatchClient client = cluster.client("status-client", o -> { });
            client.dispatch(ActivityRequest.builder().site("status", "done", "1").queue("served").activityType("echo").build())
                    .get(60, TimeUnit.SECONDS);
            client.dispatch(ActivityRequest.builder().site("status", "waiting", "1").queue("forgotten").activityType("echo").build());

            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                JsonNode status = new ObjectMapper().readTree(statusJson(port));
                assertThat(status.get("state").asText()).isEqualTo("RUNNING");
                assertThat(status.path("sitesByQueue").path("forgotten").path("UNSERVED").asLong()).isEqualTo(1);
                assertThat(status.path("sitesByState").path("RESOLVED").asLong()).isEqualTo(1);
                assertThat(status.get("unservedQueues")).extracting(JsonNode::asText).containsExactly("forgotten");
                assertThat(status.get("workers")).singleElement().satisfies(w -> {
                    assertThat(w.get("workerId").asText()).isEqualTo("status-worker");
                    assertThat(w.get("queues")).extracting(JsonNode::asText).containsExactly("served");
                    assertThat(w.get("capacity").asInt()).isEqualTo(3);
                });
                // Lag is in offsets and, as kafka-consumer-groups reports it, counts transaction markers:
                // at most one per partition once everything is consumed.
                assertThat(status.path("lagByQueue").path("forgotten").asLong()).as("the unserved task waits").isBetween(1L, 2L);
                assertThat(status.path("lagByQueue").path("served").asLong()).isBetween(0L, 3L);
            });
        }
    }
}
