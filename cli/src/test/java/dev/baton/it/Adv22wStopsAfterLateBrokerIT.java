package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.embedded.EmbeddedKafka;
import dev.baton.schemas.SiteKey;
import dev.baton.testkit.LocalCluster;
import dev.baton.worker.ActivityCompletionClient;
import dev.baton.worker.ActivityStoppedException;
import dev.baton.worker.WorkerOptions;
import org.junit.jupiter.api.Test;

/**
 * Adversary round 22 (worker lifecycle), finding 12 end to end, through the completion client (the worker's control
 * listener is the same class). A client created while its broker is not reachable yet (a service that starts before
 * Kafka), with a schema registry that is not the cluster (http://, as compose runs it), gave its stop reader 30 s, then
 * the reader ended for good: once the broker came up, the client completed and
 * heartbeated normally, but it never learned of a stop. Its heartbeat never threw {@link ActivityStoppedException}, and
 * {@code isStopped} stayed false, after the activity was cancelled.
 */
class Adv22wStopsAfterLateBrokerIT {

    @Test
    void aCompletionClientStartedBeforeItsBrokerStillLearnsOfStops() throws Exception {
        int port = EmbeddedKafka.freePort();
        String bootstrap = "127.0.0.1:" + port;
        // A registry that is not the cluster (compose runs a Confluent-compatible one over HTTP): with kafka://, creating the
        // client needs the broker, and fails fast after 30 s. mem:// stands in for it here, shared by every process of the test.
        String registry = "mem://adv22w-late-broker";
        // The stop reader's first look gives up after default.api.timeout.ms (30 s when unset): 2 s here.
        try (ActivityCompletionClient completions = ActivityCompletionClient.create(Map.of("bootstrap.servers", bootstrap,
                "default.api.timeout.ms", "2000"), registry)) {
            // The broker stays away longer than the stop reader's first look: the outage is the scenario. There is no event
            // to wait for (nothing happens while the broker is away), so this is a plain pause.
            await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(6)).until(() -> true);

            try (EmbeddedKafka kafka = EmbeddedKafka.builder().brokerPort(port).build().start();
                 LocalCluster cluster = LocalCluster.on(kafka.bootstrapServers(), 1, List.of("early"), Map.of("schema.registry.url", registry))) {
                CompletableFuture<String> handedOff = new CompletableFuture<>();
                cluster.worker(WorkerOptions.builder().workerId("adv22w-late").schemaRegistryUrl(registry).queues("early").handler("later", (ctx, input) -> {
                    handedOff.complete(ctx.completeLater().token());
                    return null;
                }));
                DispatchClient client = cluster.client("adv22w-late", unmatched -> { }, Map.of("schema.registry.url", registry));
                SiteKey site = new SiteKey("adv22w", "late-broker", "a");
                CompletableFuture<ActivityOutcome> outcome = client.dispatch(ActivityRequest.builder().site("adv22w", "late-broker", "a")
                        .queue("early").activityType("later").input("x".getBytes(UTF_8), "text/plain").heartbeat(Duration.ofSeconds(30))
                        .build());
                String token = handedOff.get(60, TimeUnit.SECONDS);
                completions.heartbeat(token, null).get(30, TimeUnit.SECONDS);

                client.cancel(site).get(60, TimeUnit.SECONDS);
                assertThat(outcome.get(60, TimeUnit.SECONDS).reason()).startsWith("cancelled:");

                // Each refused heartbeat is answered with a stop to this client; it must reach it.
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
                    try {
                        completions.heartbeat(token, null).get(10, TimeUnit.SECONDS);
                    } catch (ActivityStoppedException stopped) {
                        return true;
                    }
                    return completions.isStopped(token);
                });
            }
        }
    }
}
