package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.testkit.LocalCluster;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;
import org.junit.jupiter.api.Test;

/** A worker leases no more tasks than it has slots, however many a poll returns. */
class WorkerSlotsIT {

    private static final int SLOTS = 4;
    private static final int ACTIVITIES = 24;

    @Test
    void shouldNeverHoldMoreLeasesThanSlotsWhenSlotsFreeOneByOne() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(3, List.of("slots"))) {
            AtomicReference<Worker> worker = new AtomicReference<>();
            AtomicInteger started = new AtomicInteger();
            AtomicInteger mostHeld = new AtomicInteger();
            Semaphore finish = new Semaphore(0);
            worker.set(cluster.worker(WorkerOptions.builder().workerId("slots-worker").queues("slots").maxConcurrent(SLOTS)
                    .handler("gated", (ctx, input) -> {
                        mostHeld.accumulateAndGet(worker.get().inFlight(), Math::max);
                        started.incrementAndGet();
                        finish.acquire();
                        return input;
                    })));
            DispatchClient client = cluster.client("slots-client", o -> { });
            List<CompletableFuture<ActivityOutcome>> outcomes = new ArrayList<>();
            for (int i = 0; i < ACTIVITIES; i++) {
                outcomes.add(client.dispatch(ActivityRequest.builder().site("slots", "w" + i, "1").queue("slots").activityType("gated")
                        .input(("in-" + i).getBytes(UTF_8), "text/plain").build()));
            }
            // Free one slot at a time: each time, a poll can return up to SLOTS tasks while one slot is free.
            for (int running = SLOTS; running <= ACTIVITIES; running++) {
                int expected = running;
                await().atMost(LocalCluster.PATIENCE).until(() -> started.get() >= expected);
                finish.release();
            }
            finish.release(ACTIVITIES);
            CompletableFuture.allOf(outcomes.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

            assertThat(outcomes).allSatisfy(o -> assertThat(o.join().completed()).isTrue());
            assertThat(mostHeld.get()).as("leases held at once by a worker with %d slots", SLOTS).isLessThanOrEqualTo(SLOTS);
        }
    }
}
