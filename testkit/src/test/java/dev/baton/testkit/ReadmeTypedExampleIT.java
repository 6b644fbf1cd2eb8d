package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.ActivityFailedException;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.worker.TerminalActivityException;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;
import org.junit.jupiter.api.Test;

/** The README's "Typed activities" snippets as written, the broker's address aside. */
class ReadmeTypedExampleIT {

    record Charge(String customer, long cents) { }
    record Receipt(String id, long cents) { }

    @Test
    void shouldRunTheReadmeTypedExample() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(3, List.of("billing"))) {
            String broker = cluster.bootstrapServers();
            Worker worker = Worker.start(WorkerOptions.builder()
                    .bootstrapServers(broker)
                    .queues("billing")
                    .handler("charge", Charge.class, (ctx, charge) -> {
                        if (charge.cents() <= 0) {
                            throw new TerminalActivityException("nothing to charge");  // reason "terminal: ...", never retried
                        }
                        return new Receipt("receipt-" + ctx.idempotencyKey(), charge.cents()); // same key on every retry
                    })
                    .build());
            try (DispatchClient client = DispatchClient.create(
                    Map.of("bootstrap.servers", broker, "baton.client.id", "shop-1"), unmatched -> { })) {
                ActivityRequest request = ActivityRequest.builder()
                        .site("shop", "order-42", "charge").queue("billing").activityType("charge")
                        .input(new Charge("c-7", 1200))
                        .build();
                Receipt receipt = client.dispatch(request, Receipt.class).get(60, TimeUnit.SECONDS);
                assertThat(receipt).isEqualTo(new Receipt("receipt-" + request.idempotencyKey(), 1200));

                String reason = null;
                try {
                    client.dispatch(ActivityRequest.builder()
                            .site("shop", "order-43", "charge").queue("billing").activityType("charge")
                            .input(new Charge("c-7", 0))
                            .build(), Receipt.class).get(60, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof ActivityFailedException failed) {
                        reason = failed.reason();
                    }
                }
                assertThat(reason).isEqualTo("terminal: nothing to charge");
            } finally {
                worker.close();
            }
        }
    }
}
