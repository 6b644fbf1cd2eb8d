package dev.baton.worker.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.payload.EncodedPayload;
import dev.baton.schemas.payload.ReportLimits;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A run's result whose send failed because the broker was away longer than the producer waits (h/adv26: "COMPLETED
 * for ... not sent: Topic baton.worker-events not present in metadata after 60000 ms", and the run given up and run
 * again) is sent again until the broker takes it. Sends here complete only when the test says so.
 */
class ResultResendTest {

    /** Sends again sooner than a worker's 1 s, so the quiet spells below are short. */
    private static final Duration RESEND_EVERY = Duration.ofMillis(100);
    /** Longer than two resend intervals: long enough to see a send that should not come. */
    private static final Duration QUIET = RESEND_EVERY.multipliedBy(5);

    private final EventSerde<WorkerEvent> serde = EventSerde.of(WorkerEvent.class, SchemaRegistry.forUrl("mem://resend", Map.of()));
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
    private final EventSender events = new EventSender(producer, serde, "w", Clock.fixed(Instant.EPOCH, ZoneOffset.UTC),
            ReportLimits.defaults(), RESEND_EVERY);
    private final Execution run = new Execution(OverLimitReportsTest.task(), "w", 0);

    @AfterEach
    void close() {
        events.close();
    }

    @Test
    void shouldSendACompletionAgainUntilTheBrokerTakesIt() {
        events.completed(run, new EncodedPayload("out".getBytes(), "text/plain"));
        producer.errorNext(new TimeoutException("Topic baton.worker-events not present in metadata after 60000 ms."));
        await().atMost(Duration.ofSeconds(10)).until(() -> producer.history().size() == 2);
        producer.errorNext(new TimeoutException("Expiring 1 record(s) for baton.worker-events-0"));
        await().atMost(Duration.ofSeconds(10)).until(() -> producer.history().size() == 3);

        assertThat(producer.completeNext()).as("the third send, taken").isTrue();

        await().during(QUIET).atMost(QUIET.plusSeconds(5)).until(() -> producer.history().size() == 3);
        assertThat(kinds()).containsExactly(WorkerEventKind.COMPLETED, WorkerEventKind.COMPLETED, WorkerEventKind.COMPLETED);
        assertThat(sent().get(2).getOutput().getData()).isEqualTo(sent().get(0).getOutput().getData());
    }

    @Test
    void shouldSendAFailureAndAParkAgainToo() {
        events.failed(run, "retryable: boom", null);
        events.parked(run);
        producer.errorNext(new TimeoutException("away"));
        producer.errorNext(new TimeoutException("away"));

        await().atMost(Duration.ofSeconds(10)).until(() -> producer.history().size() == 4);
        assertThat(kinds()).containsExactly(WorkerEventKind.FAILED, WorkerEventKind.PARKED, WorkerEventKind.FAILED, WorkerEventKind.PARKED);
    }

    @Test
    void shouldNotSendAgainWhatNoWaitCures() {
        events.completed(run, new EncodedPayload("out".getBytes(), "text/plain"));
        producer.errorNext(new RecordTooLargeException("too large"));

        await().during(QUIET).atMost(QUIET.plusSeconds(5)).until(() -> producer.history().size() == 1);
    }

    @Test
    void shouldNotSendAHeartbeatAgain() {
        events.heartbeat(run);
        producer.errorNext(new TimeoutException("away"));

        await().during(QUIET).atMost(QUIET.plusSeconds(5)).until(() -> producer.history().size() == 1);
    }

    @Test
    void shouldStopSendingAgainOnceClosed() {
        events.completed(run, new EncodedPayload("out".getBytes(), "text/plain"));
        producer.errorNext(new TimeoutException("away"));
        events.close();

        await().during(QUIET).atMost(QUIET.plusSeconds(5)).until(() -> producer.history().size() == 1);
    }

    private List<WorkerEvent> sent() {
        return producer.history().stream().map(r -> serde.decode(BatonTopics.WORKER_EVENTS, r.value())).toList();
    }

    private List<WorkerEventKind> kinds() {
        return sent().stream().map(WorkerEvent::getKind).toList();
    }
}
