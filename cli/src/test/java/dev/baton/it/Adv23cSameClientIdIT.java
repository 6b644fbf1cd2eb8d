package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.ClientIdInUseException;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.testkit.LocalCluster;
import dev.baton.worker.WorkerOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * adv23c: two live clients with one {@code baton.client.id}. DESIGN §6 gives each client instance its
 * own id; nothing enforced it. Both read the id's partition, so every outcome one of them awaits was
 * also handed to the other's UnmatchedResultHandler (which is told it belongs to an earlier
 * incarnation of itself): one outcome acted on twice, by two processes. Misuse should fail fast.
 * Fixed in h/adv24b: the second is refused ({@link ClientIdInUseException}) and the first goes on.
 */
class Adv23cSameClientIdIT {

    private static LocalCluster cluster;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.start(3, List.of("adv23c-same"));
        cluster.worker(WorkerOptions.builder().workerId("adv23c-same-echo").queues("adv23c-same").handler("echo", (ctx, input) -> input));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void shouldRefuseASecondLiveClientWithTheSameIdOrKeepItsOutcomesToItself() throws Exception {
        List<ActivityOutcome> handedToB = new CopyOnWriteArrayList<>();
        try (DispatchClient a = cluster.client("adv23c-shared-id", o -> { })) {
            DispatchClient b;
            try {
                // a short wait for the holder to go: a is live, so waiting longer changes nothing but the test's time
                b = cluster.client("adv23c-shared-id", handedToB::add, Map.of("client.id.wait.ms", "3000"));
            } catch (ClientIdInUseException refused) {
                // misuse failed fast, naming the id and what to do, and the first client goes on
                assertThat(refused).hasMessageContaining("'adv23c-shared-id'").hasMessageContaining("another baton.client.id");
                ActivityOutcome outcome = a.dispatch(ActivityRequest.builder().site("adv23c", "wf-shared-after", "1").queue("adv23c-same")
                        .activityType("echo").input("still mine".getBytes(UTF_8), "text/plain").build()).get(60, TimeUnit.SECONDS);
                assertThat(outcome.completed()).isTrue();
                assertThat(new String(outcome.output(), UTF_8)).isEqualTo("still mine");
                return;
            }
            try (b) {
                ActivityOutcome outcome = a.dispatch(ActivityRequest.builder().site("adv23c", "wf-shared", "1").queue("adv23c-same")
                        .activityType("echo").input("mine".getBytes(UTF_8), "text/plain").build()).get(60, TimeUnit.SECONDS);
                assertThat(outcome.completed()).isTrue();
                // b reads the same partition; give it the time a's own delivery took, then look
                b.dispatch(ActivityRequest.builder().site("adv23c", "wf-shared-b", "1").queue("adv23c-same")
                        .activityType("echo").input("b".getBytes(UTF_8), "text/plain").build()).get(60, TimeUnit.SECONDS);
                assertThat(handedToB).as("a's outcome handed to b's UnmatchedResultHandler")
                        .noneMatch(o -> o.requestId().equals(outcome.requestId()));
            }
        }
    }
}
