package dev.baton.dispatcher;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The heap a {@link DispatchClient} holds per dispatch waiting for its outcome, as the caller keeps only the futures: what
 * every young collection copies while a burst waits (docs/decisions.md, "A waiting dispatch is one future"). Not a test;
 * run it by hand from the repository root after {@code mvn -B -q -o test-compile -pl dispatcher}:
 * <pre>
 * java -Xmx2g -cp dispatcher/target/test-classes:dispatcher/target/classes:cli/target/baton.jar dev.baton.dispatcher.PendingBytesHarness 100000
 * </pre>
 * The client runs on {@code MockProducer} (acknowledging at once) and a mock results consumer, so nothing but the client's
 * own state is counted; the producer's record history is cleared before each measure.
 */
public final class PendingBytesHarness {

    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        for (int round = 0; round < 5; round++) {
            try (DispatchClientHarness harness = DispatchClientHarness.start(Map.of("max.pending", n + 1))) {
                List<CompletableFuture<ActivityOutcome>> futures = new ArrayList<>(n);
                long before = usedAfterCollection();
                for (int i = 0; i < n; i++) {
                    futures.add(harness.client.dispatch(ActivityRequest.builder().site("bench", "w" + i, "1").queue("bench")
                            .activityType("noop").input(new byte[0], "application/octet-stream").build()));
                }
                harness.producer.clear();
                long held = usedAfterCollection() - before;
                System.out.printf("round %d: %d dispatches waiting, %.1f bytes held per dispatch (%d waiting in the client)%n",
                        round, n, (double) held / n, harness.client.pendingCount());
            }
        }
    }

    private static long usedAfterCollection() {
        System.gc();
        System.gc();
        return MEMORY.getHeapMemoryUsage().getUsed();
    }
}
