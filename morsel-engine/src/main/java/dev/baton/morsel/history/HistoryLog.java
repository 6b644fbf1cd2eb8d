package dev.baton.morsel.history;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.HistoryEvent;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.morsel.kafka.TopicFold;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Baton's logs read by the morsel engine: history folded per site, results per request, the
 * streams app's live sites from its changelog, and dispatch commands by request. Every scan is a
 * parallel {@link TopicFold} over {@code threads} workers; undecodable records are counted, not fatal.
 */
public final class HistoryLog implements AutoCloseable {

    /** Which history events count: all, or from a time, or of one namespace. */
    public record Scope(long fromMillis, String namespace) {
        public static final Scope ALL = new Scope(Long.MIN_VALUE, null);

        boolean includes(HistoryEvent e) {
            return e.getAtMillis() >= fromMillis && (namespace == null || namespace.equals(e.getSite().getNamespace()));
        }
    }

    /** An answered request: how it ended and when. */
    public record Answer(boolean completed, String reasonPrefix, long atMillis) {
        public String kind() {
            return completed ? "completed" : reasonPrefix == null ? "failed" : reasonPrefix;
        }
    }

    private static final long OFFSETS_PER_MORSEL = 50_000;

    private final Map<String, Object> clientConfig;
    private final int threads;
    private final SchemaRegistry registry;
    private final EventSerde<HistoryEvent> history;
    private final EventSerde<Outcome> outcomes;
    private final EventSerde<DispatchCommand> commands;
    private TopicFold.Result<?> lastScan;

    public HistoryLog(Map<String, Object> clientConfig, String schemaRegistryUrl, int threads) {
        this.clientConfig = clientConfig;
        this.threads = threads;
        this.registry = SchemaRegistry.forUrl(schemaRegistryUrl, clientConfig);
        this.history = EventSerde.of(HistoryEvent.class, registry);
        this.outcomes = EventSerde.of(Outcome.class, registry);
        this.commands = EventSerde.of(DispatchCommand.class, registry);
    }

    /** The last history scan's figures: records, morsels, time. */
    public TopicFold.Result<?> lastScan() {
        return lastScan;
    }

    /** Every dispatched site in scope, folded from {@code baton.history}. */
    public Map<String, SiteTrail> sites(Scope scope) {
        TopicFold.Result<Map<String, SiteTrail>> r = TopicFold.fold(clientConfig, BatonTopics.HISTORY, threads, OFFSETS_PER_MORSEL,
                HashMap::new, (map, rec) -> {
                    HistoryEvent e = decode(history, rec);
                    if (e != null && scope.includes(e)) {
                        String key = new String(rec.key(), StandardCharsets.UTF_8);
                        map.computeIfAbsent(key, k -> new SiteTrail(k, e.getSite().getNamespace(), e.getSite().getWorkflowId()))
                                .add(rec.offset(), e);
                    }
                }, (a, b) -> {
                    b.forEach((k, t) -> a.merge(k, t, SiteTrail::merge));
                    return a;
                });
        lastScan = r;
        return r.value();
    }

    /** Every answered request in {@code baton.results} (unmatched copies excluded). */
    public Map<String, Answer> answers() {
        return TopicFold.fold(clientConfig, BatonTopics.RESULTS, threads, OFFSETS_PER_MORSEL, HashMap<String, Answer>::new, (map, rec) -> {
            Outcome o = decode(outcomes, rec);
            if (o != null && !o.getUnmatched()) {
                String reason = o.getReason();
                String prefix = reason == null ? null : reason.contains(":") ? reason.substring(0, reason.indexOf(':') + 1) : reason;
                map.putIfAbsent(o.getRequestId(), new Answer(o.getStatus() == OutcomeStatus.COMPLETED, prefix, o.getAtMillis()));
            }
        }, (a, b) -> {
            b.forEach(a::putIfAbsent);
            return a;
        }).value();
    }

    /**
     * Site keys with live state in the streams app, from the latest record per key of its
     * {@code sites} changelog; empty if the changelog does not exist (state wiped).
     */
    public Map<String, Boolean> liveSites(String applicationId) {
        String changelog = applicationId + "-sites-changelog";
        record Latest(long offset, boolean live) {
        }
        try {
            Map<String, Latest> latest = TopicFold.fold(clientConfig, changelog, threads, OFFSETS_PER_MORSEL, HashMap<String, Latest>::new,
                    (map, rec) -> map.merge(new String(rec.key(), StandardCharsets.UTF_8), new Latest(rec.offset(), rec.value() != null),
                            (x, y) -> x.offset() >= y.offset() ? x : y),
                    (a, b) -> {
                        b.forEach((k, v) -> a.merge(k, v, (x, y) -> x.offset() >= y.offset() ? x : y));
                        return a;
                    }).value();
            Map<String, Boolean> live = new HashMap<>();
            latest.forEach((k, v) -> live.put(k, v.live()));
            return live;
        } catch (IllegalArgumentException missing) {
            return Map.of();
        }
    }

    /** The raw dispatch command records for these request ids, the highest attempt of each. */
    public Map<String, ConsumerRecord<byte[], byte[]>> commands(Set<String> requestIds) {
        record Found(int attempt, ConsumerRecord<byte[], byte[]> rec) {
        }
        Map<String, Found> found = TopicFold.fold(clientConfig, BatonTopics.DISPATCH, threads, OFFSETS_PER_MORSEL, HashMap<String, Found>::new,
                (map, rec) -> {
                    DispatchCommand c = decode(commands, rec);
                    if (c != null && requestIds.contains(c.getRequestId()) && c.getKind() == DispatchKind.REQUESTED) {
                        map.merge(c.getRequestId(), new Found(c.getAttempt(), rec), (x, y) -> x.attempt() >= y.attempt() ? x : y);
                    }
                }, (a, b) -> {
                    b.forEach((k, v) -> a.merge(k, v, (x, y) -> x.attempt() >= y.attempt() ? x : y));
                    return a;
                }).value();
        Map<String, ConsumerRecord<byte[], byte[]>> out = new HashMap<>();
        found.forEach((k, v) -> out.put(k, v.rec()));
        return out;
    }

    /** Every history event of one workflow (any namespace unless given), with its partition offset. */
    public List<HistoryEvent> workflow(String workflowId, String namespace) {
        return TopicFold.fold(clientConfig, BatonTopics.HISTORY, threads, OFFSETS_PER_MORSEL, ArrayList<HistoryEvent>::new,
                (list, rec) -> {
                    HistoryEvent e = decode(history, rec);
                    if (e != null && e.getSite().getWorkflowId().equals(workflowId)
                            && (namespace == null || namespace.equals(e.getSite().getNamespace()))) {
                        list.add(e);
                    }
                }, (a, b) -> {
                    a.addAll(b);
                    return a;
                }).value();
    }

    private static <T extends SpecificRecord> T decode(EventSerde<T> serde, ConsumerRecord<byte[], byte[]> rec) {
        if (rec.value() == null) {
            return null;
        }
        try {
            return serde.decode(rec.topic(), rec.value());
        } catch (UndecodableRecordException e) {
            return null; // already a dead letter when it was produced; a scan reports, it does not repair
        }
    }

    @Override
    public void close() {
        registry.close();
    }
}
