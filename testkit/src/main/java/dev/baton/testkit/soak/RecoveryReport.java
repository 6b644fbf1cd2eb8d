package dev.baton.testkit.soak;

import java.io.PrintStream;
import java.time.Clock;
import java.util.List;
import java.util.Map;

import dev.baton.events.HistoryEvent;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.streams.recovery.HangingTransaction;
import dev.baton.streams.recovery.HangingTransactionFinder;
import dev.baton.testkit.WorkerTakeovers;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.admin.Admin;

/**
 * The part of a soak's report the logs answer after the run: how long each killed worker's leases
 * waited to be leased elsewhere (from history), and the transactions left hanging on any topic
 * (open on a partition while their coordinator has closed them; the target is none).
 */
public final class RecoveryReport {

    private RecoveryReport() {
    }

    public static void print(PrintStream out, String bootstrapServers, List<WorkerTakeovers.Kill> workerKills) throws Exception {
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + bootstrapServers, Map.of())) {
            EventSerde<HistoryEvent> serde = EventSerde.of(HistoryEvent.class, registry);
            List<HistoryEvent> history = TopicScan.readAll(bootstrapServers, BatonTopics.HISTORY).stream().map(serde::decode).toList();
            List<WorkerTakeovers.Takeover> takeovers = WorkerTakeovers.measure(history, workerKills);
            long maxMillis = takeovers.stream().mapToLong(WorkerTakeovers.Takeover::maxMillis).max().orElse(0);
            out.printf("  worker takeovers  %d kills; leases leased elsewhere after at most %.1f s%n", takeovers.size(), maxMillis / 1e3);
            takeovers.forEach(t -> out.println("    " + t));
        }
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrapServers))) {
            List<HangingTransaction> hanging = new HangingTransactionFinder(admin, topic -> true, id -> true, 0, Clock.systemUTC()).find();
            out.printf("  hanging txns now  %d (target 0)%n", hanging.size());
            hanging.forEach(h -> out.println("    " + h + "; " + h.abortCommand()));
        }
    }
}
