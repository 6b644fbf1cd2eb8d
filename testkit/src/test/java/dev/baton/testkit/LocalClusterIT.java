package dev.baton.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.worker.WorkerOptions;
import org.junit.jupiter.api.Test;

/** The README's "Testing against Baton" example, as a user of the testkit would write it. */
class LocalClusterIT {

    @Test
    void shouldRunTheReadmeExample() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(3, List.of("payments"));
             DispatchClient client = cluster.client("test", unmatched -> { })) {
            cluster.worker(WorkerOptions.builder().queues("payments").handler("charge", (ctx, input) -> input));
            ActivityOutcome outcome = client.dispatch(ActivityRequest.builder().site("shop", "order-1", "charge").queue("payments")
                    .activityType("charge").input("42".getBytes(UTF_8), "text/plain").build()).get(60, SECONDS);
            assertThat(outcome.completed()).isTrue();
            assertThat(InvariantChecker.check(cluster.bootstrapServers()).violations()).isEmpty();
        }
    }
}
