package dev.baton.cli.ops;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.cli.options.ClientOptions;
import dev.baton.cli.options.OutputFormat;
import dev.baton.cli.options.Printable;
import dev.baton.events.DeadLetter;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.SiteRef;
import dev.baton.morsel.history.HistoryLog;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code baton dlq replay}: re-publishes the selected dead letters' raw key and value to their
 * source topic and partition, once. Idempotent: the replayed records and the ledger of what was
 * replayed ({@link ReplayLedger}, the replay group's offset metadata) commit in one transaction of a
 * fixed transactional id, and the ledger is read after that id's previous transactions are settled,
 * so a repeated or concurrent replay never publishes a dead letter twice.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = {"Re-publish selected dead letters to their source topic and partition (raw key and value, header baton.dlq.origin).",
            "Each dead letter is replayed at most once, however often this runs. A dead letter whose bytes were truncated is not replayed."})
final class DeadLetterReplay implements Callable<Integer> {

    /**
     * The only topics a replay writes to: the streams app's inputs, which are all it dead-letters. A
     * letter naming any other topic did not come from Baton (workers may write to the DLQ), and
     * re-publishing it would let its writer put a forged task or outcome in front of a worker or a caller.
     */
    static final Set<String> REPLAYABLE = Set.of(BatonTopics.DISPATCH, BatonTopics.WORKER_EVENTS);
    /** The partition check's reason: such a record goes back to the partition it was wrongly written to. */
    private static final String WRONG_PARTITION = "wrong partition:";

    static final String TRANSACTIONAL_ID = "baton-dlq-replay";
    static final String ORIGIN_HEADER = "baton.dlq.origin";

    @Option(names = "--all", description = "Every dead letter not yet replayed")
    boolean all;

    @Option(names = "--source-topic", description = "Only dead letters from this topic")
    String sourceTopic;

    @Option(names = "--reason-prefix", description = "Only dead letters whose reason starts with this")
    String reasonPrefix;

    @Option(names = "--dlq-offset", paramLabel = "PARTITION:OFFSET", description = "Only these dead letters (repeatable), as dlq list shows them")
    List<String> positions;

    @Spec
    CommandSpec spec;

    @Option(names = "--dry-run", description = "Show what would be replayed; publish nothing")
    boolean dryRun;

    @Option(names = "--schema-registry-url", defaultValue = "kafka://", description = "Schema registry (default ${DEFAULT-VALUE})")
    String schemaRegistryUrl;

    @Mixin
    ClientOptions client;

    @Mixin
    OutputFormat output;

    /** What became of one dead letter. */
    record Decision(DeadLetterScan.Entry entry, String action) { }

    @Override
    public Integer call() {
        boolean filtered = sourceTopic != null || reasonPrefix != null || positions != null;
        if (all == filtered) {
            throw new ParameterException(spec.commandLine(), all ? "--all selects every dead letter: give it without filters"
                    : "select dead letters: --all, or any of --source-topic, --reason-prefix, --dlq-offset");
        }
        Map<String, Object> config = client.clientConfig();
        List<DeadLetterScan.Entry> entries = DeadLetterScan.read(config, schemaRegistryUrl);
        List<Decision> decisions;
        try (Admin admin = Admin.create(ClientConfigs.admin(config));
             KafkaProducer<byte[], byte[]> producer = producer(config)) {
            // After initTransactions: an earlier replay's transaction is settled, so its ledger is the one read.
            producer.initTransactions();
            Map<Integer, ReplayLedger> ledgers = DeadLetterScan.ledgers(admin);
            decisions = stillMeant(config, schemaRegistryUrl,
                    unanswered(config, schemaRegistryUrl, genuine(config, decide(entries, ledgers, partitionCounts(producer, entries)))));
            List<Decision> toReplay = decisions.stream().filter(d -> d.action().equals("replayed")).toList();
            if (!dryRun && !toReplay.isEmpty()) {
                publish(producer, toReplay, ledgers);
            }
        }
        print(decisions);
        return 0;
    }

    private static KafkaProducer<byte[], byte[]> producer(Map<String, Object> config) {
        return new KafkaProducer<>(ClientConfigs.transactionalProducer(config, TRANSACTIONAL_ID), new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    private static Map<String, Integer> partitionCounts(KafkaProducer<byte[], byte[]> producer, List<DeadLetterScan.Entry> entries) {
        Map<String, Integer> out = new HashMap<>();
        for (DeadLetterScan.Entry e : entries) {
            if (e.letter() != null) {
                out.computeIfAbsent(e.letter().getSourceTopic(), t -> {
                    try {
                        return producer.partitionsFor(t).size();
                    } catch (RuntimeException ex) {
                        return 0; // the topic is gone: nothing to put the record back into
                    }
                });
            }
        }
        return out;
    }

    List<Decision> decide(List<DeadLetterScan.Entry> entries, Map<Integer, ReplayLedger> ledgers, Map<String, Integer> partitions) {
        List<Decision> out = new ArrayList<>();
        for (DeadLetterScan.Entry e : entries) {
            if (!selected(e)) {
                continue;
            }
            DeadLetter d = e.letter();
            String action;
            if (d == null) {
                action = "skipped: undecodable dead letter (" + e.undecodable() + ")";
            } else if (DlqCommand.replayed(ledgers, e)) {
                action = "already replayed";
            } else if (d.getReason().contains("truncated to its first")) {
                action = "skipped: its bytes were truncated; the whole record is at " + d.getSourceTopic() + "/" + d.getSourcePartition()
                        + "@" + d.getSourceOffset();
            } else if (!REPLAYABLE.contains(d.getSourceTopic())) {
                action = "skipped: " + d.getSourceTopic() + " is not an input of the streams app; only " + REPLAYABLE
                        + " are replayed (the streams app dead-letters nothing else, so this letter was written by someone else)";
            } else if (d.getReason().contains(WRONG_PARTITION)) {
                action = "skipped: it was on the wrong partition, and a replay would put it back there; its producer must use "
                        + "Kafka's default (murmur2) partitioner";
            } else if (partitions.getOrDefault(d.getSourceTopic(), 0) <= d.getSourcePartition()) {
                action = "skipped: " + d.getSourceTopic() + " has no partition " + d.getSourcePartition();
            } else {
                action = "replayed";
            }
            out.add(new Decision(e, action));
        }
        return out;
    }

    /**
     * The decisions to replay, each dispatch kept only when no outcome answers its request yet. The streams app answers an
     * invalid dispatch's caller ({@code terminal: invalid dispatch: ...}, or a failed decision's) as it dead-letters it;
     * replayed after the cause was fixed (a raised {@code max.payload.bytes}), the dispatch would run and its request id get
     * a second, different outcome. Such a caller dispatches again under a new request id. A dispatch the streams app could
     * not decode was not answered, and is replayed.
     */
    static List<Decision> unanswered(Map<String, Object> config, String schemaRegistryUrl, List<Decision> decisions) {
        // A dispatch the streams app could not decode (nor can this command) answered nobody: not among these.
        Map<Decision, String> requests = new HashMap<>();
        dispatchesToReplay(config, schemaRegistryUrl, decisions, DispatchKind.REQUESTED).forEach((d, c) -> requests.put(d, c.getRequestId()));
        if (requests.isEmpty()) {
            return decisions;
        }
        Map<String, HistoryLog.Answer> answers;
        try (HistoryLog log = new HistoryLog(config, schemaRegistryUrl, 1)) {
            answers = log.answers();
        }
        List<Decision> out = new ArrayList<>();
        for (Decision d : decisions) {
            String request = requests.get(d);
            HistoryLog.Answer a = request == null ? null : answers.get(request);
            out.add(a == null ? d : new Decision(d.entry(), "skipped: request " + request + " was answered (" + a.kind()
                    + ") when this was dead-lettered; a replay would give it a second outcome: dispatch it again under a new request id"));
        }
        return out;
    }

    /**
     * The decisions to replay, each cancel kept only while no later run of its site began after it was dead-lettered. A
     * cancel names a site, not a run: replayed after the site was dispatched again under another request (the cancel's
     * run resolved meanwhile, or the dedupe window let it go), it would cancel that run, which nobody asked to cancel. The
     * site's history decides: a {@code DISPATCHED} after the letter's time whose request differs from the site's last one
     * before it. (A retry of the same run keeps its request id, so a cancel of a run that is retrying is still replayed.)
     */
    static List<Decision> stillMeant(Map<String, Object> config, String schemaRegistryUrl, List<Decision> decisions) {
        Map<Decision, DispatchCommand> cancels = dispatchesToReplay(config, schemaRegistryUrl, decisions, DispatchKind.CANCEL);
        if (cancels.isEmpty()) {
            return decisions;
        }
        List<Decision> out = new ArrayList<>();
        try (HistoryLog log = new HistoryLog(config, schemaRegistryUrl, 1)) {
            for (Decision d : decisions) {
                DispatchCommand cancel = cancels.get(d);
                String later = cancel == null ? null : laterRun(log, cancel.getSite(), d.entry().letter().getAtMillis());
                out.add(later == null ? d : new Decision(d.entry(), "skipped: " + SiteKey.of(cancel.getSite()) + " was dispatched again"
                        + " (request " + later + ") after this cancel was dead-lettered; replayed, it would cancel that run: cancel it by"
                        + " name if that is meant (baton cancel)"));
            }
        }
        return out;
    }

    /**
     * The decisions to replay whose letter is a {@code kind} command from {@code baton.dispatch}, decoded. A letter this
     * command cannot decode is left out: replayed as it is, the streams app decides.
     */
    private static Map<Decision, DispatchCommand> dispatchesToReplay(Map<String, Object> config, String schemaRegistryUrl,
                                                                     List<Decision> decisions, DispatchKind kind) {
        Map<Decision, DispatchCommand> out = new HashMap<>();
        if (decisions.stream().noneMatch(d -> d.action().equals("replayed"))) {
            return out;
        }
        try (SchemaRegistry registry = SchemaRegistry.forUrl(schemaRegistryUrl, config)) {
            EventSerde<DispatchCommand> serde = EventSerde.of(DispatchCommand.class, registry);
            for (Decision d : decisions) {
                DeadLetter l = d.entry().letter();
                if (d.action().equals("replayed") && BatonTopics.DISPATCH.equals(l.getSourceTopic()) && l.getValue() != null) {
                    try {
                        DispatchCommand c = serde.decode(BatonTopics.DISPATCH, bytes(l.getValue()));
                        if (c.getKind() == kind) {
                            out.put(d, c);
                        }
                    } catch (RuntimeException undecodable) {
                        // left out: see above
                    }
                }
            }
        }
        return out;
    }

    /** The request of a run of {@code site} dispatched after {@code atMillis}, other than the site's last run before it, or null. */
    private static String laterRun(HistoryLog log, SiteRef site, long atMillis) {
        String before = null;
        for (HistoryEvent e : log.workflow(site.getWorkflowId(), site.getNamespace())) {
            if (e.getKind() != HistoryKind.DISPATCHED || !site.equals(e.getSite())) {
                continue;
            }
            if (e.getAtMillis() <= atMillis) {
                before = e.getRequestId();
            } else if (!Objects.equals(e.getRequestId(), before)) {
                return e.getRequestId();
            }
        }
        return null;
    }

    /** How long a source record is read for before its letter is skipped as unverifiable. */
    private static final Duration SOURCE_READ = Duration.ofSeconds(10);

    /**
     * The decisions to replay, each kept only when its letter's source record is still at the topic, partition and
     * offset it names, with the same key and value. Workers may write {@code baton.dlq} but not {@code baton.dispatch}:
     * without this, a worker's forged letter would be published on {@code baton.dispatch} under the operator's principal
     * (a cancel of any site, an activity nobody dispatched). A record the streams app dead-lettered is still there until
     * retention removes it; then it cannot be told from a forgery and is skipped, saying so.
     */
    static List<Decision> genuine(Map<String, Object> config, List<Decision> decisions) {
        if (decisions.stream().noneMatch(d -> d.action().equals("replayed"))) {
            return decisions;
        }
        List<Decision> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> reader = new KafkaConsumer<>(ClientConfigs.assignedReader(config), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            for (Decision d : decisions) {
                out.add(d.action().equals("replayed") ? new Decision(d.entry(), sourceCheck(reader, d.entry().letter())) : d);
            }
        }
        return out;
    }

    private static String sourceCheck(KafkaConsumer<byte[], byte[]> reader, DeadLetter d) {
        TopicPartition tp = new TopicPartition(d.getSourceTopic(), d.getSourcePartition());
        String where = d.getSourceTopic() + "/" + d.getSourcePartition() + "@" + d.getSourceOffset();
        reader.assign(List.of(tp));
        long begin = reader.beginningOffsets(List.of(tp), SOURCE_READ).get(tp);
        long end = reader.endOffsets(List.of(tp), SOURCE_READ).get(tp);
        if (d.getSourceOffset() < begin) {
            return "skipped: " + where + " is gone (the log starts at " + begin + "), so the letter cannot be checked against it";
        }
        if (d.getSourceOffset() >= end) {
            return "skipped: " + where + " does not hold this record (the log ends at " + end + "): the letter was not written by Baton";
        }
        reader.seek(tp, d.getSourceOffset());
        long deadline = System.nanoTime() + SOURCE_READ.toNanos();
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : reader.poll(Duration.ofMillis(200))) {
                if (r.offset() < d.getSourceOffset()) {
                    continue;
                }
                boolean same = r.offset() == d.getSourceOffset() && Arrays.equals(r.key(), bytes(d.getKey()))
                        && Arrays.equals(r.value(), bytes(d.getValue()));
                return same ? "replayed" : "skipped: " + where + " does not hold this record's key and value: the letter was not"
                        + " written by Baton (workers may write baton.dlq, not " + d.getSourceTopic() + ")";
            }
            if (reader.position(tp) >= end) {
                break; // nothing left to read: the offset was an aborted record or a transaction marker
            }
        }
        return "skipped: " + where + " could not be read" + (reader.position(tp) >= end ? " (no record there)" : " within " + SOURCE_READ.toSeconds()
                + " s") + ", so the letter cannot be checked against it";
    }

    boolean selected(DeadLetterScan.Entry e) {
        if (all) {
            return true;
        }
        DeadLetter d = e.letter();
        if (positions != null && !positions.contains(e.position())) {
            return false;
        }
        if (sourceTopic != null && (d == null || !sourceTopic.equals(d.getSourceTopic()))) {
            return false;
        }
        return reasonPrefix == null || d != null && d.getReason().startsWith(reasonPrefix);
    }

    private static void publish(KafkaProducer<byte[], byte[]> producer, List<Decision> toReplay, Map<Integer, ReplayLedger> ledgers) {
        Map<Integer, List<Long>> replayedByPartition = new HashMap<>();
        producer.beginTransaction();
        try {
            for (Decision decision : toReplay) {
                DeadLetterScan.Entry e = decision.entry();
                DeadLetter d = e.letter();
                ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(d.getSourceTopic(), d.getSourcePartition(), bytes(d.getKey()),
                        bytes(d.getValue()));
                r.headers().add(ORIGIN_HEADER, (BatonTopics.DLQ + "/" + e.partition() + "@" + e.offset()).getBytes(StandardCharsets.UTF_8));
                producer.send(r);
                replayedByPartition.computeIfAbsent(e.partition(), p -> new ArrayList<>()).add(e.offset());
            }
            Map<TopicPartition, OffsetAndMetadata> ledger = new HashMap<>();
            replayedByPartition.forEach((p, offsets) -> {
                ReplayLedger updated = ledgers.getOrDefault(p, ReplayLedger.empty()).with(offsets);
                ledger.put(new TopicPartition(BatonTopics.DLQ, p), new OffsetAndMetadata(updated.next(), updated.encode()));
            });
            producer.sendOffsetsToTransaction(ledger, new ConsumerGroupMetadata(DeadLetterScan.REPLAY_GROUP));
            producer.commitTransaction();
        } catch (RuntimeException e) {
            try {
                producer.abortTransaction();
            } catch (RuntimeException abort) {
                e.addSuppressed(abort);
            }
            throw new IllegalStateException("replay failed and was rolled back, nothing was published: " + e.getMessage(), e);
        }
    }

    private static byte[] bytes(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private void print(List<Decision> decisions) {
        if (output.json()) {
            ObjectMapper json = new ObjectMapper();
            for (Decision d : decisions) { // one object per line, as dlq list and outbox print
                System.out.println(DlqCommand.toJson(json, d.entry(), !d.action().startsWith("skipped")).put("action",
                        dryRun && d.action().equals("replayed") ? "would replay" : d.action()).toString());
            }
            return;
        }
        long replayed = 0;
        for (Decision d : decisions) {
            DeadLetter l = d.entry().letter();
            String target = l == null ? "-" : l.getSourceTopic() + "/" + l.getSourcePartition();
            boolean replaying = d.action().equals("replayed");
            replayed += replaying ? 1 : 0;
            System.out.printf("%-8s -> %-32s %s%n", d.entry().position(), Printable.of(target), dryRun && replaying ? "would replay"
                    : Printable.of(d.action()));
        }
        System.out.printf("%d dead letter(s) selected, %d %s%n", decisions.size(), replayed, dryRun ? "would be replayed (dry run)" : "replayed");
    }
}
