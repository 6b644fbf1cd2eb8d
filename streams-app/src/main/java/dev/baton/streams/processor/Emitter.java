package dev.baton.streams.processor;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import dev.baton.events.ActivityTask;
import dev.baton.events.HistoryEvent;
import dev.baton.events.Outcome;
import dev.baton.events.WorkerControl;
import dev.baton.schemas.DeadLetters;
import dev.baton.schemas.SiteKey;
import dev.baton.streams.names.TopologyNames;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Encodes the streams app's outputs and forwards them to their sinks. One per processor instance.
 *
 * <p>Outputs are staged like the stores' writes: they are encoded when a rule emits them (so an
 * output that cannot be encoded fails the step before anything is forwarded) and forwarded together
 * at {@link #commitStep()}; {@link #abortStep()} drops them.
 */
final class Emitter {

    /** Task topics most recently used that are kept; a deployment has a handful of queues, and nodes per queue. */
    private static final int TASK_TOPICS = 256;

    private record Staged(Record<byte[], byte[]> record, String sink) {
    }

    private final ProcessorContext<byte[], byte[]> context;
    private final EventSerdes serdes;
    private final DeadLetters deadLetters;
    private final List<Staged> staged = new ArrayList<>();
    private final Map<String, TaskTopic> taskTopics = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, TaskTopic> eldest) {
            return size() > TASK_TOPICS;
        }
    };

    Emitter(ProcessorContext<byte[], byte[]> context, EventSerdes serdes, DeadLetters deadLetters) {
        this.context = context;
        this.serdes = serdes;
        this.deadLetters = deadLetters;
    }

    void task(SiteKey site, ActivityTask task) {
        staged.add(new Staged(taskRecord(site, task), TopologyNames.TASKS_SINK));
    }

    /** A stop for a task not leased yet ({@link ActivityTask#getStopTokenFingerprint()}): on the task's topic, after the task. */
    void taskStop(SiteKey site, ActivityTask stop) {
        staged.add(new Staged(taskRecord(site, stop), TopologyNames.TASKS_SINK));
    }

    private Record<byte[], byte[]> taskRecord(SiteKey site, ActivityTask task) {
        TaskTopic topic = taskTopic(task.getQueue(), task.getNode());
        RecordHeaders headers = new RecordHeaders();
        headers.add(TopologyNames.TASK_TOPIC_HEADER, topic.nameBytes());
        return new Record<>(site.toBytes(), serdes.task().encode(topic.name(), task), now(), headers);
    }

    /** A task topic's name, and its bytes for the sink's header: one array shared by every task record's header (nothing writes into one). */
    private record TaskTopic(String name, byte[] nameBytes) {
    }

    /**
     * The queue's (or pinned node's) task topic, from the last {@link #TASK_TOPICS} used: building and checking the name for
     * every task was ~1.5% of the stream thread in {@code StepCostHarness}'s profile, and a new name string hashed again where
     * its schema id is looked up.
     */
    private TaskTopic taskTopic(String queue, String node) {
        String key = node == null ? queue : queue + '\u0000' + node;
        TaskTopic topic = taskTopics.get(key);
        if (topic == null) {
            String name = node == null ? BatonTopics.tasks(queue) : BatonTopics.tasks(queue, node);
            topic = new TaskTopic(name, name.getBytes(StandardCharsets.UTF_8));
            taskTopics.put(key, topic);
        }
        return topic;
    }

    void control(WorkerControl control) {
        stage(control.getWorkerId().getBytes(StandardCharsets.UTF_8),
                serdes.control().encode(BatonTopics.WORKER_CONTROL, control), TopologyNames.WORKER_CONTROL_SINK);
    }

    void outcome(String replyKey, Outcome outcome) {
        stage(replyKey.getBytes(StandardCharsets.UTF_8), serdes.outcome().encode(BatonTopics.RESULTS, outcome), TopologyNames.RESULTS_SINK);
    }

    void history(SiteKey site, HistoryEvent event) {
        stage(site.toBytes(), serdes.history().encode(BatonTopics.HISTORY, event), TopologyNames.HISTORY_SINK);
    }

    void deadLetter(String topic, int partition, long offset, byte[] key, byte[] value, String reason) {
        ProducerRecord<byte[], byte[]> letter = deadLetters.deadLetter(topic, partition, offset, key, value, reason);
        stage(letter.key(), letter.value(), TopologyNames.DLQ_SINK);
    }

    /**
     * A clock tick for this task's own worker-events partition: once it is read back, every report
     * written before {@code nowMillis} has been read (see {@link ReportClock}).
     */
    void clockTick(int partition, long nowMillis) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(TopologyNames.CLOCK_HEADER, ByteBuffer.allocate(Long.BYTES).putLong(nowMillis).array());
        staged.add(new Staged(new Record<>(ByteBuffer.allocate(Integer.BYTES).putInt(partition).array(), null, nowMillis, headers),
                TopologyNames.CLOCK_SINK));
    }

    /** A deadline record (see {@link DeadlineRecords}) for this task's own worker-events partition. */
    void deadlineRecord(int partition, byte[] header, DeadlineRules.Request request) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(TopologyNames.DEADLINE_HEADER, header);
        if (request.census().isPresent()) {
            headers.add(TopologyNames.DEADLINE_CENSUS_HEADER, DeadlineRecords.census(request.census().getAsInt()));
        }
        request.armedBy().ifPresent(arm -> headers.add(TopologyNames.DEADLINE_ARMED_BY_HEADER, arm.toHeader()));
        staged.add(new Staged(new Record<>(ByteBuffer.allocate(Integer.BYTES).putInt(partition).array(), null, now(), headers),
                TopologyNames.CLOCK_SINK));
    }

    long now() {
        return context.currentSystemTimeMs();
    }

    /** Forwards this step's outputs, in the order they were emitted. */
    void commitStep() {
        for (Staged s : staged) {
            context.forward(s.record(), s.sink());
        }
        staged.clear();
    }

    /** Drops this step's outputs. */
    void abortStep() {
        staged.clear();
    }

    private void stage(byte[] key, byte[] value, String sink) {
        staged.add(new Staged(new Record<>(key, value, now()), sink));
    }
}
