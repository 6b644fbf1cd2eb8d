package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.cli.CliRun;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.streams.BatonStreamsApp;
import dev.baton.testkit.LocalCluster;
import dev.baton.testkit.TempDirs;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.streams.KafkaStreams;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Two instances of one streams app, each with its query port: {@code baton status}, {@code site
 * describe} and {@code sites list} give the same, whole answer whichever instance they ask.
 */
class MultiInstanceQueriesIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int SITES = 12;

    @Test
    void shouldAnswerStatusAndSiteLookupsForBothInstancesFromEither() throws Exception {
        int portA = freePort();
        int portB = freePort();
        Path stateB = TempDirs.create("baton-state-b-");
        try (LocalCluster cluster = LocalCluster.start(3, List.of("idle"), Map.of("status.port", portA))) {
            Map<String, Object> configB = new HashMap<>(cluster.clientConfig());
            configB.put("state.dir", stateB.toString());
            configB.put("status.port", portB);
            configB.put("timer.resolution.ms", 100L);
            try (BatonStreamsApp b = new BatonStreamsApp(configB, new SimpleMeterRegistry()).start()) {
                BatonStreamsApp a = cluster.streamsApp();
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> a.isRunning() && b.isRunning()
                        && hasTasks(a.streams()) && hasTasks(b.streams()));
                DispatchClient client = cluster.client("multi-client", o -> { });
                List<String> sites = new ArrayList<>();
                for (int i = 0; i < SITES; i++) {
                    ActivityRequest r = ActivityRequest.builder().site("multi", "wf-" + i, "1").queue("idle").activityType("echo").build();
                    client.send(r).get();
                    sites.add(r.site().asKey());
                }

                for (int port : List.of(portA, portB)) {
                    Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                        JsonNode status = run("status", "--streams-app=http://127.0.0.1:" + port, "-o", "json");
                        assertThat(status.get("instances")).hasSize(2).allSatisfy(i -> assertThat(i.get("state").asText()).isEqualTo("RUNNING"));
                        long total = 0;
                        for (JsonNode n : status.get("sitesByState")) {
                            total += n.asLong();
                        }
                        assertThat(total).isEqualTo(SITES);
                        assertThat(status.path("sitesByQueue").path("idle").path("UNSERVED").asLong()).isEqualTo(SITES);
                    });
                    JsonNode listed = run("sites", "list", "--queue", "idle", "--streams-app=http://127.0.0.1:" + port, "-o", "json");
                    assertThat(listed.get("sites")).extracting(s -> s.get("site").asText()).containsExactlyInAnyOrderElementsOf(sites);
                }

                Set<String> owners = new HashSet<>();
                for (int i = 0; i < sites.size(); i++) {
                    String site = sites.get(i);
                    // Every site through one instance; a few through both, which must agree on the owner.
                    JsonNode viaA = run("site", "describe", site, "--streams-app=http://127.0.0.1:" + portA, "-o", "json");
                    assertThat(viaA.get("site").asText()).isEqualTo(site);
                    owners.add(viaA.get("owner").asText());
                    if (i < 3) {
                        JsonNode viaB = run("site", "describe", site, "--streams-app=http://127.0.0.1:" + portB, "-o", "json");
                        assertThat(viaB.get("owner")).isEqualTo(viaA.get("owner"));
                    }
                }
                assertThat(owners).as("each instance owns some of the sites, and answers for the other's")
                        .containsExactlyInAnyOrder("localhost:" + portA, "localhost:" + portB);
            }
        } finally {
            dev.baton.testkit.TempDirs.deleteQuietly(stateB);
        }
    }

    private static boolean hasTasks(KafkaStreams streams) {
        return streams.metadataForLocalThreads().stream().anyMatch(t -> !t.activeTasks().isEmpty());
    }

    private static JsonNode run(String... args) throws Exception {
        CliRun run = CliRun.of(args);
        assertThat(run.exit()).as(String.join(" ", args) + "\n" + run.output()).isZero();
        return JSON.readTree(run.printed());
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
