package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.schemas.payload.ReportLimits;
import dev.baton.testkit.LocalCluster;
import dev.baton.worker.LeaseMode;
import dev.baton.worker.WorkerOptions;
import org.junit.jupiter.api.Test;

/**
 * Adversary (adv21): two payloads each within {@code max.payload.bytes} (the default, 512 KiB) make a site row over
 * Kafka's 1 MiB. Attempt 1 of a site completes with a 512 KiB output; the same caller then dispatches attempt 2 of the
 * site (a new run) with a 512 KiB input. The new run's row keeps the replaced run's outcome ({@code previousRun},
 * output whole) beside its own input: its {@code sites} changelog record is over 1 MiB, the send fails, the stream
 * thread dies, and the thread that replaces it reads the dispatch again and dies again. The caller is never answered,
 * and neither is any other caller of the partition. Nothing but the client's own checks was used: both payloads are
 * accepted by the client, the worker and the streams app. (The decisions log bounds a row as "the payload with up
 * to 64 KiB of other fields"; {@code previousRun}'s output is a second payload.)
 */
class Adv21RowTooLargeIT {

    private static final int MAX = ReportLimits.DEFAULT_MAX_PAYLOAD_BYTES;

    @Test
    void aNewRunOfASiteWhoseLastRunHadALargeOutputIsAnswered() throws Exception {
        newRunAfterALargeOutput(Map.of(), LeaseMode.TRANSACTIONAL);
    }

    /** The same under at-least-once (plain leases). */
    @Test
    void aNewRunOfASiteWhoseLastRunHadALargeOutputIsAnsweredAtLeastOnce() throws Exception {
        byte[] key = new byte[32];
        Arrays.fill(key, (byte) 7);
        newRunAfterALargeOutput(Map.of("processing.guarantee", "at_least_once", "token.key", Base64.getEncoder().encodeToString(key)),
                LeaseMode.PLAIN);
    }

    private void newRunAfterALargeOutput(Map<String, Object> streams, LeaseMode leases) throws Exception {
        try (LocalCluster cluster = LocalCluster.start(1, List.of("q"), streams)) {
            cluster.worker(WorkerOptions.builder().workerId("w1").queues("q").maxConcurrent(4).leaseMode(leases)
                    .handler("big", (ctx, input) -> {
                        byte[] out = new byte[MAX];
                        Arrays.fill(out, (byte) 'o');
                        return input.length < 100 ? out : "ok".getBytes(UTF_8);
                    }));
            List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();
            DispatchClient client = cluster.client("adv21-row", unmatched::add);

            ActivityOutcome first = client.dispatch(request("s", 1, "small".getBytes(UTF_8))).get(60, TimeUnit.SECONDS);
            assertThat(first.completed()).as("attempt 1: %s", first).isTrue();
            assertThat(first.output()).hasSize(MAX);

            byte[] bigInput = new byte[MAX];
            Arrays.fill(bigInput, (byte) 'i');
            CompletableFuture<ActivityOutcome> second = client.dispatch(request("s", 2, bigInput));
            CompletableFuture<ActivityOutcome> other = client.dispatch(request("t", 1, "small-t".getBytes(UTF_8)));

            ActivityOutcome otherOutcome = other.get(60, TimeUnit.SECONDS);
            assertThat(otherOutcome.completed()).as("another site of the partition: %s", otherOutcome).isTrue();
            ActivityOutcome secondOutcome = second.get(60, TimeUnit.SECONDS);
            assertThat(secondOutcome).as("attempt 2 of the site is answered").isNotNull();
            // The caller sends attempt 2 again (after whatever answer it got): it must be answered too.
            ActivityOutcome again = client.dispatch(request("s", 2, bigInput)).get(60, TimeUnit.SECONDS);
            assertThat(again).as("attempt 2 sent again, after %s", secondOutcome).isNotNull();
        }
    }

    /**
     * At-least-once, what the answer "nothing was changed" hides: the changelog send failed after RocksDB took the row
     * (Kafka's change-logging layer writes the store first), so the local store holds attempt 2's run although its
     * caller was told it was not started. Attempt 3 (small input) then takes that run over and tells attempt 2's caller
     * {@code superseded: by attempt 3}: a second, different outcome for one request id. The client drops it to the
     * unmatched handler, which is where this test finds it.
     */
    @Test
    void aStepWhoseRowWasNotWrittenLeavesNoRunBehindAtLeastOnce() throws Exception {
        byte[] key = new byte[32];
        Arrays.fill(key, (byte) 7);
        List<String> runs = new CopyOnWriteArrayList<>();
        try (LocalCluster cluster = LocalCluster.start(1, List.of("q"),
                Map.of("processing.guarantee", "at_least_once", "token.key", Base64.getEncoder().encodeToString(key)))) {
            cluster.worker(WorkerOptions.builder().workerId("w1").queues("q").maxConcurrent(4).leaseMode(LeaseMode.PLAIN)
                    .handler("big", (ctx, input) -> {
                        runs.add("attempt " + ctx.attempt() + " gen " + ctx.generation() + " input " + input.length);
                        byte[] out = new byte[MAX];
                        Arrays.fill(out, (byte) 'o');
                        return input.length < 100 ? out : "ok".getBytes(UTF_8);
                    }));
            List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();
            DispatchClient client = cluster.client("adv21-row3", unmatched::add);
            assertThat(client.dispatch(request("s", 1, "small".getBytes(UTF_8))).get(60, TimeUnit.SECONDS).completed()).isTrue();

            byte[] bigInput = new byte[MAX];
            Arrays.fill(bigInput, (byte) 'i');
            ActivityOutcome second = client.dispatch(request("s", 2, bigInput)).get(60, TimeUnit.SECONDS);
            CompletableFuture<ActivityOutcome> third = client.dispatch(request("s", 3, "x".repeat(200).getBytes(UTF_8)));
            ActivityOutcome thirdOutcome = null;
            try {
                thirdOutcome = third.get(60, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                // reported below
            }
            String story = "attempt 2 answered " + second + "; attempt 3 answered " + thirdOutcome + "; runs " + runs;
            assertThat(thirdOutcome).as(story).isNotNull();
            // no second outcome for attempt 2's request reaches the unmatched handler while attempt 3 runs on
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(unmatched).as(story + "; unmatched " + unmatched).noneSatisfy(o -> assertThat(o.requestId()).isEqualTo(second.requestId())));
        }
    }

    private static ActivityRequest request(String activity, int attempt, byte[] input) {
        return ActivityRequest.builder().site("adv21", "row", activity).queue("q").activityType("big").attempt(attempt)
                .input(input, "application/octet-stream").build();
    }
}
