package dev.baton.testkit.soak;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.Payload;
import dev.baton.events.RetryPolicy;
import dev.baton.events.Timeouts;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes dispatch commands with a request id of the soak's choosing, so that one request can be
 * sent twice, as a caller re-sending a request it is not sure arrived would. {@code DispatchClient}
 * gives every dispatch a fresh id, so the soak builds the command itself, field for field as the
 * client does, addressed to the soak client's reply key: the outcome reaches that client's
 * unmatched handler, which no future claims. Thread-safe.
 */
final class RawDispatcher implements AutoCloseable {

    private final String replyKey;
    private final Clock clock;
    private final SchemaRegistry registry;
    private final EventSerde<DispatchCommand> commands;
    private final KafkaProducer<byte[], byte[]> producer;

    RawDispatcher(String bootstrap, String replyKey, Clock clock) {
        this.replyKey = replyKey;
        this.clock = clock;
        this.registry = SchemaRegistry.forUrl("kafka://" + bootstrap, Map.of());
        this.commands = EventSerde.of(DispatchCommand.class, registry);
        this.producer = new KafkaProducer<>(ClientConfigs.durableProducer(bootstrap,
                Map.of(ProducerConfig.CLIENT_ID_CONFIG, "baton-soak-raw-dispatch")), new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** The command {@code DispatchClient} would send for {@code request}, with {@code requestId}. */
    DispatchCommand command(ActivityRequest request, String requestId) {
        ActivityRequest.RetryOptions r = request.retry();
        ActivityRequest.TimeoutOptions t = request.timeouts();
        return DispatchCommand.newBuilder().setKind(DispatchKind.REQUESTED).setSite(request.site().toRef()).setRequestId(requestId)
                .setReplyKey(replyKey).setAttempt(request.attempt()).setRunId(request.runId()).setIdempotencyKey(request.idempotencyKey())
                .setQueue(request.queue()).setActivityType(request.activityType()).setNode(request.node())
                .setInput(new Payload(ByteBuffer.wrap(request.input()), request.contentType()))
                .setRetryPolicy(r == null ? null : new RetryPolicy(r.initialInterval().toMillis(), r.coefficient(), r.maxInterval().toMillis(),
                        r.maxAttempts(), r.nonRetryableReasonPrefixes()))
                .setTimeouts(t.equals(ActivityRequest.TimeoutOptions.NONE) ? null
                        : new Timeouts(millis(t.scheduleToStart()), millis(t.startToClose()), millis(t.scheduleToClose()), millis(t.heartbeat())))
                .setRequestedAtMillis(clock.millis()).build();
    }

    /** Completes when the broker has the command. */
    CompletableFuture<Void> send(DispatchCommand cmd) {
        CompletableFuture<Void> acked = new CompletableFuture<>();
        producer.send(new ProducerRecord<>(BatonTopics.DISPATCH, SiteKey.of(cmd.getSite()).toBytes(),
                commands.encode(BatonTopics.DISPATCH, cmd)), (meta, e) -> {
                    if (e != null) {
                        acked.completeExceptionally(e);
                    } else {
                        acked.complete(null);
                    }
                });
        return acked;
    }

    private static Long millis(Duration d) {
        return d == null ? null : d.toMillis();
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
        registry.close();
    }
}
