package dev.baton.streams.processor;

import java.nio.charset.StandardCharsets;

import dev.baton.events.ActivityTask;
import dev.baton.events.HistoryEvent;
import dev.baton.events.Outcome;
import dev.baton.events.WorkerControl;
import dev.baton.schemas.DeadLetters;
import dev.baton.schemas.SiteKey;
import dev.baton.streams.topology.TopologyNames;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Encodes and forwards the streams app's outputs to their sinks. One per processor instance. With
 * paced commits it also tells the thread's {@link CommitPacer} what was released and resolved, and
 * asks for a commit when the pacer says the last commit's tasks are all back.
 */
final class Emitter {

    private final ProcessorContext<byte[], byte[]> context;
    private final Serdes serdes;
    private final DeadLetters deadLetters;
    private final boolean paced;

    Emitter(ProcessorContext<byte[], byte[]> context, Serdes serdes, DeadLetters deadLetters, boolean paced) {
        this.context = context;
        this.serdes = serdes;
        this.deadLetters = deadLetters;
        this.paced = paced;
    }

    void task(SiteKey site, ActivityTask task) {
        String topic = task.getNode() == null ? BatonTopics.tasks(task.getQueue()) : BatonTopics.tasks(task.getQueue(), task.getNode());
        RecordHeaders headers = new RecordHeaders();
        headers.add(TopologyNames.TASK_TOPIC_HEADER, topic.getBytes(StandardCharsets.UTF_8));
        context.forward(new Record<>(site.toBytes(), serdes.task().encode(topic, task), now(), headers), TopologyNames.TASKS_SINK);
        if (paced) {
            CommitPacer.current().released(site);
        }
    }

    void control(WorkerControl control) {
        forward(control.getWorkerId().getBytes(StandardCharsets.UTF_8),
                serdes.control().encode(BatonTopics.WORKER_CONTROL, control), TopologyNames.WORKER_CONTROL_SINK);
    }

    void outcome(String replyKey, Outcome outcome) {
        forward(replyKey.getBytes(StandardCharsets.UTF_8), serdes.outcome().encode(BatonTopics.RESULTS, outcome), TopologyNames.RESULTS_SINK);
        if (paced && CommitPacer.current().resolved(SiteKey.of(outcome.getSite()))) {
            context.commit();
        }
    }

    void history(SiteKey site, HistoryEvent event) {
        forward(site.toBytes(), serdes.history().encode(BatonTopics.HISTORY, event), TopologyNames.HISTORY_SINK);
    }

    void deadLetter(String topic, int partition, long offset, byte[] key, byte[] value, String reason) {
        ProducerRecord<byte[], byte[]> letter = deadLetters.deadLetter(topic, partition, offset, key, value, reason);
        forward(letter.key(), letter.value(), TopologyNames.DLQ_SINK);
    }

    long now() {
        return context.currentSystemTimeMs();
    }

    private void forward(byte[] key, byte[] value, String sink) {
        context.forward(new Record<>(key, value, now()), sink);
        if (paced) {
            CommitPacer.current().wrote();
        }
    }
}
