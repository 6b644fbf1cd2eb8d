package dev.baton.schemas;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.baton.events.ActivityTask;
import dev.baton.events.DeadLetter;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.Failure;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.Payload;
import dev.baton.events.RetryPolicy;
import dev.baton.events.SiteRef;
import dev.baton.events.Timeouts;
import dev.baton.events.WorkerControl;
import dev.baton.events.WorkerControlKind;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.events.WorkerStatus;
import dev.baton.topics.BatonTopics;
import org.apache.avro.specific.SpecificRecord;

/** One realistic event of each type with the topic it travels on: for the smoke demo, docs and tests. */
public final class EventExamples {

    public record Example(String topic, SpecificRecord event) {
    }

    private EventExamples() {
    }

    public static List<Example> all() {
        SiteRef site = new SiteRef("payments", "order-42", "3");
        Payload input = new Payload(ByteBuffer.wrap("{\"amount\":12}".getBytes(StandardCharsets.UTF_8)), "application/json");
        String token = CompletionToken.random().value();
        return List.of(
                new Example(BatonTopics.DISPATCH, DispatchCommand.newBuilder().setKind(DispatchKind.REQUESTED).setSite(site)
                        .setRequestId("req-1").setReplyKey("client-a").setAttempt(1).setRunId("run-1").setIdempotencyKey("idem-1")
                        .setQueue("payments").setActivityType("charge").setInput(input)
                        .setRetryPolicy(new RetryPolicy(100L, 2.0, 10_000L, 5, List.of("terminal:")))
                        .setTimeouts(new Timeouts(1_000L, null, 60_000L, 3_000L)).setRequestedAtMillis(1L).build()),
                new Example(BatonTopics.WORKER_EVENTS, WorkerEvent.newBuilder().setKind(WorkerEventKind.COMPLETED).setSite(site)
                        .setAttempt(1).setGeneration(1).setToken(token).setWorkerId("w-1").setOutput(input).setAtMillis(2L).build()),
                new Example(BatonTopics.tasks("payments"), ActivityTask.newBuilder().setSite(site).setAttempt(1).setGeneration(1)
                        .setToken(token).setIdempotencyKey("idem-1").setQueue("payments").setActivityType("charge").setInput(input)
                        .setHeartbeatWindowMillis(3_000L).setScheduledAtMillis(3L).build()),
                new Example(BatonTopics.WORKER_CONTROL, WorkerControl.newBuilder().setKind(WorkerControlKind.STOP).setWorkerId("w-1")
                        .setSite(site).setAttempt(1).setGeneration(1).setReason("superseded: by attempt 2").setAtMillis(4L).build()),
                new Example(BatonTopics.WORKERS, WorkerStatus.newBuilder().setWorkerId("w-1").setQueues(List.of("payments"))
                        .setNodeLabels(List.of("eu-1")).setCapacity(8).setInFlight(2).setStartedAtMillis(5L).setLastSeenMillis(6L).build()),
                new Example(BatonTopics.RESULTS, Outcome.newBuilder().setStatus(OutcomeStatus.FAILED).setSite(site).setRequestId("req-1")
                        .setReplyKey("client-a").setAttempt(1).setReason("terminal: card declined").setAtMillis(7L)
                        .setFailure(new Failure("CardDeclined", "card declined", input, "at Charge.run(Charge.java:12)\n",
                                new Failure("java.io.IOException", "gateway said 402", null, "", null))).build()),
                new Example(BatonTopics.HISTORY, HistoryEvent.newBuilder().setKind(HistoryKind.COMPLETION_REFUSED).setSite(site)
                        .setAttempt(1).setGeneration(1).setWorkerId("w-1").setReason("stale token").setAtMillis(8L).build()),
                new Example(BatonTopics.DLQ, DeadLetter.newBuilder().setSourceTopic(BatonTopics.DISPATCH).setSourcePartition(3)
                        .setSourceOffset(99L).setValue(ByteBuffer.wrap(new byte[] {1, 2, 3})).setReason("WRONG_MAGIC_BYTE")
                        .setAtMillis(9L).build()));
    }
}
