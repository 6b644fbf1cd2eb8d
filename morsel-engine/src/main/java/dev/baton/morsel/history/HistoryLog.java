package dev.baton.morsel.history;

import static dev.baton.morsel.history.LogProjections.C_ATTEMPT;
import static dev.baton.morsel.history.LogProjections.C_KIND;
import static dev.baton.morsel.history.LogProjections.C_REQUEST;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.BinaryOperator;
import java.util.function.Supplier;

import dev.baton.events.DispatchKind;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.kafka.OffsetRange;
import dev.baton.morsel.kafka.ProjectedReader;
import dev.baton.morsel.kafka.ProjectedRow;
import dev.baton.morsel.kafka.ScanTimings;
import dev.baton.morsel.kafka.TopicFold;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.Reasons;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Baton's logs read by the morsel engine: history folded per site, results per request, the
 * streams app's live sites from its changelog, and dispatch commands by request. Every scan is a
 * parallel {@link TopicFold} over {@code threads} workers whose consumers live as long as this
 * log; values are read through projections ({@link LogProjections}), never decoded whole except
 * for the events a workflow's timeline prints. Undecodable records are counted, not fatal.
 */
public final class HistoryLog implements AutoCloseable {

    /** Which history events count: all, or from a time, or of one namespace. */
    public record Scope(long fromMillis, String namespace) {
        public static final Scope ALL = new Scope(Long.MIN_VALUE, null);
    }

    /** An answered request: how it ended and when. */
    public record Answer(boolean completed, String reasonPrefix, long atMillis) {
        public String kind() {
            return completed ? "completed" : reasonPrefix == null ? "failed" : reasonPrefix;
        }
    }

    /** A worker's share of a fold: its partial value, its decode buffer, its count of undecodable records. */
    private static final class Partial<V> {
        final V value;
        final ProjectedRow row;
        long undecodable;

        Partial(V value, ProjectedRow row) {
            this.value = value;
            this.row = row;
        }
    }

    private final SchemaRegistry registry;
    private final TopicFold fold;
    private final Map<String, Object> clientConfig;
    private final int threads;
    private final MorselMetrics metrics;
    private final ScanTimings timings;
    /** A second fold (consumers and workers) for reads beside the history scan; made by the first {@link #liveSitesBeside}. */
    private TopicFold side;
    private CompletableFuture<Map<String, Boolean>> besideRead;
    private final ProjectedReader history;
    private final SiteQueries queries;
    private final ProjectedReader commands;
    /** Whole events, for the few a workflow's timeline prints; made on first use. */
    private EventSerde<HistoryEvent> fullHistory;
    private TopicFold.Result<?> lastScan;
    private long lastUndecodable;

    public HistoryLog(Map<String, Object> clientConfig, String schemaRegistryUrl, int threads) {
        this(clientConfig, schemaRegistryUrl, threads, MorselMetrics.noop());
    }

    public HistoryLog(Map<String, Object> clientConfig, String schemaRegistryUrl, int threads, MorselMetrics metrics) {
        this(clientConfig, schemaRegistryUrl, threads, metrics, ScanTimings.off());
    }

    /** As {@link HistoryLog#HistoryLog(Map, String, int, MorselMetrics)}, recording where each scan's time goes in {@code timings}. */
    public HistoryLog(Map<String, Object> clientConfig, String schemaRegistryUrl, int threads, MorselMetrics metrics, ScanTimings timings) {
        this.clientConfig = clientConfig;
        this.threads = threads;
        this.metrics = metrics;
        this.timings = timings;
        // Opened beside, and the projections' schemas parsed beside: the fold's consumers, offsets and
        // first fetches need neither, and on a cold JVM each is the better part of a second of class loading.
        this.registry = new RegistryOpening(schemaRegistryUrl, clientConfig, timings);
        Thread parsing = new Thread(() -> timings.time("projections parsed (beside)", LogProjections::parse), "baton-projections");
        parsing.setDaemon(true);
        parsing.start();
        this.fold = new TopicFold(clientConfig, threads, metrics, timings);
        this.history = new ProjectedReader(registry, () -> LogProjections.HISTORY);
        this.queries = new SiteQueries(history, new ProjectedReader(registry, () -> LogProjections.OUTCOME));
        this.commands = new ProjectedReader(registry, () -> LogProjections.COMMAND);
    }

    /** The last history scan's figures: records, bytes, morsels, time. */
    public TopicFold.Result<?> lastScan() {
        return lastScan;
    }

    /** Records of the last history scan that could not be decoded (they were dead letters when written). */
    public long lastUndecodable() {
        return lastUndecodable;
    }

    /**
     * How many sites have an event in scope: the sites query of {@code replay} alone, over
     * {@code baton.history} ({@link SiteQueries}: scan, filter, project, run combine, deal, build),
     * its rows left keyed by dictionary ids as {@code replay} reads them.
     */
    public int siteCount(Scope scope) {
        long before = queries.undecodable();
        TopicFold.Result<AggregateResult> r = queries.siteRows(fold, scope);
        lastScan = r;
        lastUndecodable = queries.undecodable() - before;
        return r.value().rows();
    }

    /**
     * The sites in scope and every answer, read as one job over {@code baton.history} and
     * {@code baton.results} at once; {@link #lastScan()} then describes the history part.
     */
    SiteQueries.SitesWithAnswers sitesWithAnswers(Scope scope) {
        long before = queries.undecodable();
        SiteQueries.SitesWithAnswers r = queries.sitesWithAnswers(fold, scope);
        lastScan = r.scan();
        lastUndecodable = queries.undecodable() - before;
        return r;
    }

    /** Every answered request in {@code baton.results} (unmatched copies excluded), by its first outcome. */
    public Map<String, Answer> answers() {
        return queries.answers(fold);
    }

    /**
     * Starts reading {@link #liveSites(String)} on a second fold of this log's own (its consumers and
     * workers are made on that thread too), so the changelog is read while the caller scans history
     * and results on this log's fold, and the second fold's start-up hides behind that scan. Once per log.
     *
     * @throws IllegalStateException if called twice
     */
    public synchronized CompletableFuture<Map<String, Boolean>> liveSitesBeside(String applicationId) {
        if (besideRead != null) {
            throw new IllegalStateException("liveSitesBeside may be called once per log");
        }
        besideRead = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try {
                TopicFold f = sideFold();
                besideRead.complete(timings.time("live sites (changelog)", () -> liveSites(f, applicationId)));
            } catch (RuntimeException | Error e) {
                besideRead.completeExceptionally(e);
            }
        }, "baton-replay-beside");
        reader.setDaemon(true);
        reader.start();
        return besideRead;
    }

    private synchronized TopicFold sideFold() {
        if (side == null) {
            side = new TopicFold(clientConfig, threads, metrics, timings);
        }
        return side;
    }

    /**
     * Site keys with live state in the streams app, from the latest record per key of its
     * {@code sites} changelog; empty if the changelog does not exist (state wiped).
     */
    public Map<String, Boolean> liveSites(String applicationId) {
        return liveSites(fold, applicationId);
    }

    private static Map<String, Boolean> liveSites(TopicFold fold, String applicationId) {
        String changelog = applicationId + "-sites-changelog";
        record Latest(long offset, boolean live) {
        }
        BinaryOperator<Latest> later = (x, y) -> x.offset() >= y.offset() ? x : y;
        try {
            Map<String, Latest> latest = fold.fold(changelog, HashMap<String, Latest>::new,
                    (map, rec) -> map.merge(new String(rec.key(), StandardCharsets.UTF_8), new Latest(rec.offset(), rec.value() != null), later),
                    (a, b) -> {
                        b.forEach((k, v) -> a.merge(k, v, later));
                        return a;
                    }).value();
            Map<String, Boolean> live = new HashMap<>();
            latest.forEach((k, v) -> live.put(k, v.live()));
            return live;
        } catch (IllegalArgumentException missing) {
            return Map.of();
        }
    }

    /** Whether retention has trimmed {@code baton.results}: some partition no longer starts at offset 0. */
    public boolean resultsTrimmed() {
        return fold.trimmed(BatonTopics.RESULTS);
    }

    /** History kinds that change a run's state: the latest of them, for the run's own request, says whether the run ended. */
    private static final Set<HistoryKind> RUN_STATE = EnumSet.of(HistoryKind.DISPATCHED, HistoryKind.LEASED, HistoryKind.COMPLETED,
            HistoryKind.FAILED, HistoryKind.RETRY_SCHEDULED, HistoryKind.PARKED, HistoryKind.TRANSPORT_LOST, HistoryKind.TIMED_OUT,
            HistoryKind.CANCELLED, HistoryKind.UNAVAILABLE);

    /**
     * Of these sites (each with the request id of its latest dispatch), those whose run of that request history shows
     * resolved: its latest run-state event for that request is an outcome ({@code COMPLETED}, a {@code FAILED} or
     * {@code TIMED_OUT} not followed by {@code RETRY_SCHEDULED}, {@code CANCELLED}, {@code UNAVAILABLE}, or a
     * {@code TRANSPORT_LOST} whose reason is {@code transport-exhausted:}). A retried attempt's {@code DISPATCHED} carries
     * the run's request id too, so a run in backoff or re-delivered is not resolved. Read when {@code baton.results} no
     * longer holds every outcome (retention): only history can then tell a resolved site from a dangling one.
     */
    public Set<String> resolvedInHistory(Map<String, String> requestBySite) {
        record Last(long offset, HistoryKind kind, String reason) {
        }
        BinaryOperator<Last> later = (x, y) -> x.offset() >= y.offset() ? x : y;
        EventSerde<HistoryEvent> whole = fullHistory();
        Map<String, Last> last = fold.fold(BatonTopics.HISTORY, HashMap<String, Last>::new, (map, rec) -> {
            if (rec.key() == null || rec.value() == null) {
                return;
            }
            String site = new String(rec.key(), StandardCharsets.UTF_8);
            String request = requestBySite.get(site);
            if (request == null) {
                return;
            }
            HistoryEvent e;
            try {
                e = whole.decode(rec);
            } catch (UndecodableRecordException skipped) {
                return;
            }
            if (RUN_STATE.contains(e.getKind()) && request.equals(e.getRequestId())) {
                map.merge(site, new Last(rec.offset(), e.getKind(), e.getReason()), later);
            }
        }, (a, b) -> {
            b.forEach((k, v) -> a.merge(k, v, later));
            return a;
        }).value();
        Set<String> resolved = new HashSet<>();
        last.forEach((site, l) -> {
            boolean ended = switch (l.kind()) {
                case COMPLETED, FAILED, TIMED_OUT, CANCELLED, UNAVAILABLE -> true;
                case TRANSPORT_LOST -> l.reason() != null && l.reason().startsWith(Reasons.TRANSPORT_EXHAUSTED);
                default -> false;
            };
            if (ended) {
                resolved.add(site);
            }
        });
        return resolved;
    }

    /**
     * The sites answered under these request ids in {@code baton.results} (unmatched copies excluded), each as
     * {@link #siteRequest}: for request ids several sites were dispatched under, where the id alone cannot say whose
     * answer an outcome is. Outcomes of other requests are not decoded.
     */
    public Set<String> answeredSites(Set<String> requestIds) {
        EventSerde<Outcome> whole = EventSerde.of(Outcome.class, registry);
        return fold.fold(BatonTopics.RESULTS, HashSet<String>::new, (found, rec) -> {
            if (rec.value() == null) {
                return;
            }
            Outcome o;
            try {
                o = whole.decode(rec);
            } catch (RuntimeException skipped) { // undecodable (a dead letter when written) or damaged outside the projection
                return;
            }
            if (!o.getUnmatched() && o.getRequestId() != null && requestIds.contains(o.getRequestId()) && o.getSite() != null) {
                found.add(siteRequest(new String(SiteKey.of(o.getSite()).toBytes(), StandardCharsets.UTF_8),
                        o.getRequestId()));
            }
        }, (a, b) -> {
            a.addAll(b);
            return a;
        }).value();
    }

    /** A site and a request id as one string, for sets of both. */
    public static String siteRequest(String siteKey, String requestId) {
        return siteKey + '\u0000' + requestId;
    }

    /**
     * The raw dispatch command records of these sites' requests, keyed by {@link #siteRequest}, the highest attempt of
     * each: a request id is the dispatcher's choice, so a command is found by its site (its record key) and request both.
     */
    public Map<String, ConsumerRecord<byte[], byte[]>> siteCommands(Set<String> siteRequests) {
        return highestAttempts(siteRequests, (rec, c) -> rec.key() == null ? null
                : siteRequest(new String(rec.key(), StandardCharsets.UTF_8), c.string(C_REQUEST)));
    }

    /** The raw dispatch command records for these request ids, the highest attempt of each. */
    public Map<String, ConsumerRecord<byte[], byte[]>> commands(Set<String> requestIds) {
        return highestAttempts(requestIds, (rec, c) -> c.string(C_REQUEST));
    }

    /** The requested dispatch commands whose {@code keyOf} is one of {@code wanted} (null for none), the highest attempt of each. */
    private Map<String, ConsumerRecord<byte[], byte[]>> highestAttempts(Set<String> wanted,
                                                                        BiFunction<ConsumerRecord<byte[], byte[]>, ProjectedRow, String> keyOf) {
        record Found(int attempt, ConsumerRecord<byte[], byte[]> rec) {
        }
        BinaryOperator<Found> higher = (x, y) -> x.attempt() >= y.attempt() ? x : y;
        Map<String, Found> found = scan(BatonTopics.DISPATCH, commands, HashMap<String, Found>::new, (map, rec, c) -> {
            if (c.getInt(C_KIND) == DispatchKind.REQUESTED.ordinal()) {
                String key = keyOf.apply(rec, c);
                if (key != null && wanted.contains(key)) {
                    map.merge(key, new Found(c.getInt(C_ATTEMPT), rec), higher);
                }
            }
        }, (a, b) -> {
            b.forEach((k, v) -> a.merge(k, v, higher));
            return a;
        }).value().value;
        Map<String, ConsumerRecord<byte[], byte[]>> out = new HashMap<>();
        found.forEach((k, v) -> out.put(k, v.rec()));
        return out;
    }

    /**
     * Every history event of one workflow (any namespace unless given), earliest first: the engine
     * finds their positions by projection ({@link SiteQueries#workflowPositions}), then only the
     * records at those positions are read again and decoded whole.
     */
    public List<HistoryEvent> workflow(String workflowId, String namespace) {
        List<long[]> positions = queries.workflowPositions(fold, workflowId, namespace);
        EventSerde<HistoryEvent> whole = fullHistory();
        Map<Integer, long[]> spans = new TreeMap<>(); // partition -> [first offset, last offset]
        Set<Long> wanted = new HashSet<>();
        for (long[] p : positions) {
            long offset = SiteQueries.offsetOf(p[0]);
            spans.merge(SiteQueries.partitionOf(p[0]), new long[] {offset, offset}, (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
            wanted.add(p[0]);
        }
        List<OffsetRange> ranges = new ArrayList<>();
        spans.forEach((partition, span) -> ranges.add(new OffsetRange(BatonTopics.HISTORY, partition, span[0], span[1] + 1)));
        Map<Long, HistoryEvent> events = fold.fold(ranges, HashMap<Long, HistoryEvent>::new, (found, rec) -> {
            long position = SiteQueries.position(rec.partition(), rec.offset());
            if (wanted.contains(position)) {
                try {
                    found.put(position, whole.decode(rec));
                } catch (UndecodableRecordException damagedOutsideTheProjection) {
                    // the projected fields read, another did not: left out, like any undecodable record
                }
            }
        }, (a, b) -> {
            a.putAll(b);
            return a;
        }, () -> false, () -> { }).value();
        List<HistoryEvent> timeline = new ArrayList<>();
        for (long[] p : positions) {
            HistoryEvent e = events.get(p[0]);
            if (e != null) {
                timeline.add(e);
            }
        }
        return timeline;
    }

    private synchronized EventSerde<HistoryEvent> fullHistory() {
        if (fullHistory == null) {
            fullHistory = EventSerde.of(HistoryEvent.class, registry);
        }
        return fullHistory;
    }

    /** What a fold does with one decoded record. */
    @FunctionalInterface
    private interface Step<V> {
        void accept(V partial, ConsumerRecord<byte[], byte[]> record, ProjectedRow row);
    }

    private <V> TopicFold.Result<Partial<V>> scan(String topic, ProjectedReader reader, Supplier<V> partial, Step<V> step, BinaryOperator<V> merge) {
        BiConsumer<Partial<V>, ConsumerRecord<byte[], byte[]>> decodeThenStep = (p, rec) -> {
            if (rec.value() == null) {
                return;
            }
            try {
                reader.decode(topic, rec.value(), p.row);
            } catch (UndecodableRecordException e) {
                p.undecodable++; // a dead letter when it was written; a scan reports, it does not repair
                return;
            }
            step.accept(p.value, rec, p.row);
        };
        return fold.fold(topic, () -> new Partial<>(partial.get(), reader.newRow()), decodeThenStep, (a, b) -> {
            Partial<V> m = new Partial<>(merge.apply(a.value, b.value), a.row);
            m.undecodable = a.undecodable + b.undecodable;
            return m;
        });
    }

    @Override
    public void close() {
        CompletableFuture<Map<String, Boolean>> pending;
        synchronized (this) {
            pending = besideRead;
        }
        if (pending != null) {
            try {
                pending.join(); // its fold is in use until then
            } catch (RuntimeException failedAlreadyReported) {
                // the caller saw it from the future, or left early for another reason
            }
        }
        synchronized (this) {
            if (side != null) {
                side.close();
            }
        }
        fold.close();
        registry.close();
    }
}
