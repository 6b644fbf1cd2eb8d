package dev.baton.worker.internals;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.baton.events.ActivityTask;
import dev.baton.events.SiteRef;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.payload.EncodedPayload;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.ActivityHandler;
import dev.baton.worker.TerminalActivityException;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** Typed handlers as the worker runs them: input read by its content type, output labelled with the converter's. */
class TypedHandlerAdapterTest {

    record Charge(String customer, long cents) {
    }

    record Receipt(String id, long cents) {
    }

    private final Execution execution = execution();

    @Test
    void shouldReadJsonInputAndLabelTheOutputJson() throws Exception {
        ActivityHandler handler = adapter(Charge.class, (ctx, charge) -> new Receipt(ctx.idempotencyKey() + "-" + charge.customer(), charge.cents()));

        EncodedPayload out = handler.handlePayload(execution, json("{\"customer\":\"c-7\",\"cents\":1200}"));

        assertThat(out.contentType()).isEqualTo("application/json");
        assertThat(new String(out.data(), UTF_8)).isEqualTo("{\"id\":\"idem-c-7\",\"cents\":1200}");
    }

    @Test
    void shouldFailTerminallyWithoutCallingTheHandlerWhenTheInputDoesNotRead() {
        AtomicBoolean called = new AtomicBoolean();
        ActivityHandler handler = adapter(Charge.class, (ctx, charge) -> {
            called.set(true);
            return charge;
        });

        assertThatThrownBy(() -> handler.handlePayload(execution, EncodedPayload.octetStream("{}".getBytes(UTF_8))))
                .isInstanceOf(TerminalActivityException.class).hasMessageContaining("'charge'")
                .hasMessageContaining("application/octet-stream").hasMessageContaining(Charge.class.getName());
        assertThat(called).isFalse();
    }

    @Test
    void shouldLabelBytesReturnedByATypedHandlerOctetStream() throws Exception {
        ActivityHandler handler = adapter(Charge.class, (ctx, charge) -> charge.customer().getBytes(UTF_8));

        EncodedPayload out = handler.handlePayload(execution, json("{\"customer\":\"c-7\",\"cents\":1}"));

        assertThat(out).isEqualTo(EncodedPayload.octetStream("c-7".getBytes(UTF_8)));
    }

    @Test
    void shouldLetABytesHandlerKeepItsBytesAsOctetStream() throws Exception {
        ActivityHandler echo = (ctx, input) -> input;

        assertThat(echo.handlePayload(execution, json("{}"))).isEqualTo(EncodedPayload.octetStream("{}".getBytes(UTF_8)));
    }

    @Test
    void shouldRegisterTypedHandlersOnTheBuilderLastRegistrationWinning() throws Exception {
        WorkerOptions options = WorkerOptions.builder().bootstrapServers("localhost:1").queues("q")
                .handler("charge", (ctx, input) -> input)
                .handler("charge", Charge.class, (ctx, charge) -> new Receipt("r", charge.cents()))
                .handler("refund", Charge.class, (ctx, charge) -> charge)
                .handler("refund", (ctx, input) -> "bytes".getBytes(UTF_8))
                .build();

        assertThat(options.handlers().get("charge").handlePayload(execution, json("{\"cents\":5}")).contentType()).isEqualTo("application/json");
        assertThat(options.handlers().get("refund").handlePayload(execution, json("{}"))).isEqualTo(EncodedPayload.octetStream("bytes".getBytes(UTF_8)));
    }

    @Test
    void shouldSendTheCompletionWithTheOutputsContentType() {
        SchemaRegistry registry = SchemaRegistry.forUrl("mem://typed-handlers", Map.of());
        EventSerde<WorkerEvent> serde = EventSerde.of(WorkerEvent.class, registry);
        MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        EventSender events = new EventSender(producer, serde, "w", Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));

        events.completed(execution, json("{\"id\":\"r\"}"));

        WorkerEvent sent = serde.decode(BatonTopics.WORKER_EVENTS, producer.history().get(0).value());
        assertThat(sent.getKind()).isEqualTo(WorkerEventKind.COMPLETED);
        assertThat(sent.getOutput().getContentType()).isEqualTo("application/json");
        assertThat(EncodedPayload.of(sent.getOutput()).data()).isEqualTo("{\"id\":\"r\"}".getBytes(UTF_8));
    }

    private static <I> ActivityHandler adapter(Class<I> type, dev.baton.worker.TypedActivityHandler<I, ?> handler) {
        return new TypedHandlerAdapter<>("charge", type, handler, PayloadConverters.defaults());
    }

    private static EncodedPayload json(String text) {
        return new EncodedPayload(text.getBytes(UTF_8), "application/json");
    }

    private static Execution execution() {
        ActivityTask task = ActivityTask.newBuilder().setSite(new SiteRef("shop", "order-1", "charge")).setAttempt(1).setGeneration(1)
                .setToken("tok").setIdempotencyKey("idem").setQueue("q").setActivityType("charge").setScheduledAtMillis(0).build();
        return new Execution(task, "w", 0);
    }
}
