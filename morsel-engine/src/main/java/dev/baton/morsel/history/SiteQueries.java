package dev.baton.morsel.history;

import static dev.baton.morsel.history.LogProjections.H_AT;
import static dev.baton.morsel.history.LogProjections.H_ATTEMPT;
import static dev.baton.morsel.history.LogProjections.H_KIND;
import static dev.baton.morsel.history.LogProjections.H_NAMESPACE;
import static dev.baton.morsel.history.LogProjections.H_QUEUE;
import static dev.baton.morsel.history.LogProjections.H_REQUEST;
import static dev.baton.morsel.history.LogProjections.H_TYPE;
import static dev.baton.morsel.history.LogProjections.H_WORKFLOW;
import static dev.baton.morsel.history.LogProjections.O_AT;
import static dev.baton.morsel.history.LogProjections.O_REASON;
import static dev.baton.morsel.history.LogProjections.O_REQUEST;
import static dev.baton.morsel.history.LogProjections.O_STATUS;
import static dev.baton.morsel.history.LogProjections.O_UNMATCHED;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.baton.events.HistoryKind;
import dev.baton.events.OutcomeStatus;
import dev.baton.morsel.kafka.OffsetRange;
import dev.baton.morsel.kafka.ProjectedReader;
import dev.baton.morsel.kafka.ProjectedRow;
import dev.baton.morsel.kafka.RecordView;
import dev.baton.morsel.kafka.TopicFold;
import dev.baton.morsel.kafka.TopicPageSource;
import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.operator.ColumnRef;
import dev.baton.morsel.operator.Expr;
import dev.baton.morsel.operator.HashAggregate;
import dev.baton.morsel.operator.RangeFilter;
import dev.baton.morsel.operator.RunCombine;
import dev.baton.morsel.operator.ScanPipeline;
import dev.baton.morsel.operator.SortLimit;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.topics.BatonTopics;

/**
 * The history queries as operator compositions over a topic read as columns: a projected decoder
 * turns each record into longs (the few queues, types and namespaces through a {@link StringIds}
 * dictionary; the group key, and a dispatch's request id, as references to the page's copy of their
 * bytes, {@link PageStrings}, interned segment by segment once dealt), then
 *
 * <pre>
 * sites:   scan baton.history → filter at ≥ from, namespace = n → project dispatch_order, dispatch_at
 *          → combine runs of one site → deal by dictionary segment → build segment by segment:
 *            last kind by order; request, attempt, queue, type of the latest dispatch (ARG_MAX by
 *            dispatch_order); first dispatch time (MIN)
 * answers: scan baton.results → filter unmatched = 0 → project first = -order → combine runs of one request
 *          → deal → build by request: completed, reason prefix, time of its first outcome (ARG_MAX by first)
 * </pre>
 *
 * A record's order is its offset with its partition below it ({@link #order}): a site's events sit in one partition,
 * where "latest" is by offset, and two records never share an order, so every ARG_MAX slot of a group picks the same
 * record's value even when one key was written to two partitions, and partials merge in any order: the per-site fold
 * that was a sequential loop is an aggregate ({@link RunCombine}, {@link SegmentDeal}, {@link SegmentBuild}).
 */
final class SiteQueries {

    private static final HistoryKind[] KINDS = HistoryKind.values();
    private static final List<String> HISTORY_COLUMNS = List.of("order", "kind", "dispatched", "at", "site", "namespace", "request",
            "attempt", "queue", "type");
    private static final List<String> POSITION_COLUMNS = List.of("position", "at", "workflow", "namespace");
    /** A record's position packs its partition above its offset's 40 bits (a trillion offsets per partition). */
    private static final int POSITION_OFFSET_BITS = 40;
    /** A record's order keeps its partition in its low bits (a million partitions), its offset above (~8.8 trillion). */
    private static final int ORDER_PARTITION_BITS = 20;
    private static final long MAX_ORDER_OFFSET = (1L << (Long.SIZE - 1 - ORDER_PARTITION_BITS)) - 1;
    private static final List<String> OUTCOME_COLUMNS = List.of("order", "request", "completed", "reason", "at", "unmatched");
    // Slots of the sites aggregate (a maxBy: its order, then its values) and of the answers aggregate.
    private static final int S_LAST_KIND = 1;
    private static final int S_DISPATCH_ORDER = 2;
    private static final int S_REQUEST = 3;
    private static final int S_ATTEMPT = 4;
    private static final int S_QUEUE = 5;
    private static final int S_TYPE = 6;
    private static final int S_FIRST_DISPATCH_AT = 7;
    private static final int A_COMPLETED = 1;
    private static final int A_REASON = 2;
    private static final int A_AT = 3;
    /** Groups a query's tables start with when nothing says more. */
    private static final int EXPECTED_GROUPS = 1 << 12;
    /**
     * Beyond this many groups tables grow as they fill: a guess must not take memory a real history would not. A whole
     * history's tables are sized from its record count up to this (~25M records); below it they never grow mid-scan.
     */
    private static final int MAX_EXPECTED_GROUPS = 1 << 23;
    /** History events per site a whole history is sized for (dispatched, leased, an outcome). */
    private static final int EVENTS_PER_SITE = 3;
    /** The length of a site key or a request id (a UUID is 36) a whole history's dictionary is sized for. */
    private static final int STRING_BYTES = 40;

    private final ProjectedReader history;
    private final ProjectedReader outcomes;
    private final StringIds ids = new StringIds();
    /**
     * The sites' keys, apart from {@link #ids}: no other string is ever compared with a key, and interned alone each
     * segment's table holds half as many strings while the build fills it (docs/decisions.md, "The replay scan's strings").
     */
    private final StringIds siteKeys = new StringIds();
    private final AtomicLong undecodable = new AtomicLong();

    SiteQueries(ProjectedReader history, ProjectedReader outcomes) {
        this.history = history;
        this.outcomes = outcomes;
    }

    /** History records the decoders could not read since this instance was made (results are read at the same time, apart). */
    long undecodable() {
        return undecodable.get();
    }

    /**
     * Every site with an event in scope, as the composition above folds it, left as rows keyed by
     * dictionary ids: what {@code replay} reads, without a string or an object per site.
     */
    TopicFold.Result<AggregateResult> siteRows(TopicFold fold, HistoryLog.Scope scope) {
        return fold.query(sitesQuery(fold, scope), () -> false);
    }

    /** Row {@code i} of the sites aggregate as a {@link SiteTrail}, its key made from {@code keys}, its other strings from {@code ids}. */
    private static SiteTrail trail(AggregateResult a, int i, StringIds keys, StringIds ids) {
        SiteTrail t = new SiteTrail(keys.string(a.key(i)));
        t.lastKind = KINDS[(int) a.value(i, S_LAST_KIND)];
        if (a.value(i, S_DISPATCH_ORDER) >= 0) {
            t.requestId = ids.string(a.value(i, S_REQUEST));
            t.attempt = (int) a.value(i, S_ATTEMPT);
            t.queue = ids.string(a.value(i, S_QUEUE));
            t.activityType = ids.string(a.value(i, S_TYPE));
            t.firstDispatchAt = a.value(i, S_FIRST_DISPATCH_AT);
        }
        return t;
    }

    /** Every answered request (unmatched copies excluded): how its first outcome by offset ended, and when. */
    Map<String, HistoryLog.Answer> answers(TopicFold fold) {
        AggregateResult a = fold.query(answersQuery(fold), () -> false).value();
        Map<String, HistoryLog.Answer> answers = new HashMap<>();
        for (int i = 0; i < a.rows(); i++) {
            answers.put(ids.string(a.key(i)), new HistoryLog.Answer(a.value(i, A_COMPLETED) == 1, ids.string(a.value(i, A_REASON)),
                    a.value(i, A_AT)));
        }
        return answers;
    }

    /**
     * The sites in scope and every answer, both compositions above run as one job (history and
     * results are read at once) and left as aggregates keyed by dictionary ids, for a caller that
     * joins them without turning each row into strings.
     */
    SitesWithAnswers sitesWithAnswers(TopicFold fold, HistoryLog.Scope scope) {
        List<TopicFold.Result<AggregateResult>> r = fold.queryTogether(List.of(sitesQuery(fold, scope), answersQuery(fold)), () -> false);
        AggregateResult answers = r.get(1).value();
        return new SitesWithAnswers(r.get(0), answers, siteKeys, ids, SitesWithAnswers.rowsById(answers));
    }

    /**
     * Sites (one row each, keyed by site id) and answers (keyed by request id, ascending), read
     * through names rather than slots. Sites are keyed by {@code siteKeys}' ids; every other string shares one
     * dictionary, {@code ids}, so a site's request id is the key of its answer's row. {@code answerRows}, when not
     * null, is each answer's row by its request id ({@link #rowsById}).
     */
    record SitesWithAnswers(TopicFold.Result<AggregateResult> scan, AggregateResult answers, StringIds siteKeys, StringIds ids,
                            int[] answerRows) {

        /** The outcome id of a completed answer; the others' are their reason prefix's dictionary id (>= 0). */
        static final long COMPLETED = -2;
        /** Answers' ids may spread this many times their count (plus a little) for an array by id to be worth its room. */
        private static final int DENSE_SPREAD = 4;

        /**
         * Each answer's row at the index of its request id (-1 where no answer has that id), or null when the ids are too
         * sparse for an array. A whole history's request ids are most of its dictionary's ids, so the array is about the
         * answers' count: a site finds its answer in one read rather than a binary search of misses over millions of rows
         * (serial, ~0.7 s of a 10M replay's report).
         */
        static int[] rowsById(AggregateResult answers) {
            int n = answers.rows();
            if (n == 0 || answers.key(n - 1) < 0 || answers.key(n - 1) > (long) DENSE_SPREAD * n + 1024) {
                return null;
            }
            int[] rows = new int[(int) answers.key(n - 1) + 1];
            Arrays.fill(rows, -1);
            for (int a = 0; a < n; a++) {
                long id = answers.key(a);
                if (id >= 0) {
                    rows[(int) id] = a;
                }
            }
            return rows;
        }

        AggregateResult sites() {
            return scan.value();
        }

        String siteKey(int site) {
            return siteKeys.string(sites().key(site));
        }

        /** Parked by a draining worker and not leased, resolved or re-dispatched since. */
        boolean parked(int site) {
            return KINDS[(int) sites().value(site, S_LAST_KIND)] == HistoryKind.PARKED;
        }

        /** The whole row as a {@link SiteTrail}: for the few sites a caller keeps. */
        SiteTrail trail(int site) {
            return SiteQueries.trail(sites(), site, siteKeys, ids);
        }

        boolean dispatched(int site) {
            return sites().value(site, S_DISPATCH_ORDER) >= 0;
        }

        long request(int site) {
            return sites().value(site, S_REQUEST);
        }

        long queue(int site) {
            return sites().value(site, S_QUEUE);
        }

        long type(int site) {
            return sites().value(site, S_TYPE);
        }

        long firstDispatchAt(int site) {
            return sites().value(site, S_FIRST_DISPATCH_AT);
        }

        /** The answer row of {@code request}, or -1 when it was not answered. */
        int answerOf(long request) {
            if (answerRows != null) {
                return request >= 0 && request < answerRows.length ? answerRows[(int) request] : -1;
            }
            int row = Arrays.binarySearch(answers.keys(), 0, answers.rows(), request);
            return row < 0 ? -1 : row;
        }

        boolean completed(int answer) {
            return answers.value(answer, A_COMPLETED) == 1;
        }

        /** The dictionary id of the answer's reason prefix ({@link StringIds#NULL} when it has none). */
        long reasonPrefix(int answer) {
            return answers.value(answer, A_REASON);
        }

        long answeredAt(int answer) {
            return answers.value(answer, A_AT);
        }

        /** How the answer ended, as an id: {@link #COMPLETED} or its reason prefix's; {@link #outcomeName} spells it. */
        long outcome(int answer) {
            return completed(answer) ? COMPLETED : reasonPrefix(answer);
        }

        /** The name {@link HistoryLog.Answer#kind()} gives an {@link #outcome}. */
        String outcomeName(long outcome) {
            return outcome == COMPLETED ? "completed" : new HistoryLog.Answer(false, ids.string(outcome), 0).kind();
        }
    }

    private TopicFold.TopicQuery<AggregateResult> sitesQuery(TopicFold fold, HistoryLog.Scope scope) {
        long namespace = ids.id(scope.namespace());
        List<OffsetRange> ranges = fold.partitions(BatonTopics.HISTORY);
        // a whole history has a few events per site (a dispatch, a lease, an outcome): tables sized for that do not grow mid-scan
        int expectedSites = scope.equals(HistoryLog.Scope.ALL) ? expectedGroups(ranges, EVENTS_PER_SITE) : EXPECTED_GROUPS;
        PageStrings[] keys = PageStrings.perWorker(fold.threads());
        PageStrings[] requests = PageStrings.perWorkerLastOnly(fold.threads());
        boolean scoped = scope.namespace() != null;
        return new TopicFold.TopicQuery<>(ranges, HISTORY_COLUMNS, worker -> historyDecoder(keys[worker], requests[worker], scoped), scan -> {
            if (scope.fromMillis() != Long.MIN_VALUE) {
                scan.filter(RangeFilter.between(scan.col("at"), scope.fromMillis(), Long.MAX_VALUE));
            }
            if (scoped) {
                scan.filter(RangeFilter.between(scan.col("namespace"), namespace, namespace));
            }
            SegmentDeal deal = sitesDeal(scan, keys, requests, expectedSites);
            scan.into(deal);
            return scheduler -> deal.result(scheduler, siteKeys, ids);
        });
    }

    /**
     * The sites query's composition after its scope's filters, over columns {@link #HISTORY_COLUMNS}: each run of a site's
     * records folded into one row (its latest kind; its latest dispatch's request, attempt, queue and type, by one order;
     * its first dispatch's time), the rows dealt by dictionary segment. Package-level so the property tests run this
     * composition rather than a copy of it.
     */
    static SegmentDeal sitesDeal(ScanPipeline scan, PageStrings[] keys, PageStrings[] requests, int expectedSites) {
        ColumnRef order = scan.col("order");
        ColumnRef dispatched = scan.col("dispatched");
        // the record's order for a dispatch, -1 otherwise: the latest dispatch is the ARG_MAX by this
        ColumnRef dispatchOrder = scan.project("dispatch_order", Expr.sub(Expr.mul(Expr.add(order, Expr.lit(1)), dispatched), Expr.lit(1)));
        // the time of a dispatch, Long.MAX_VALUE otherwise: the first dispatch is the MIN
        ColumnRef dispatchAt = scan.project("dispatch_at", Expr.add(Expr.mul(scan.col("at"), dispatched),
                Expr.mul(Expr.sub(Expr.lit(1), dispatched), Expr.lit(Long.MAX_VALUE))));
        // a site's records lie together in its partition: fold each run of them into one row, then deal the rows by
        // dictionary segment and build the aggregate segment by segment (docs/decisions.md, "Replay's sites scan bucketed")
        RunCombine runs = scan.combineRuns("site", scan.col("site"))
                .maxBy(order, scan.col("kind"))
                // one order for the latest dispatch's four fields: they are one record's, and the deal writes it once
                .maxBy(dispatchOrder, scan.col("request"), scan.col("attempt"), scan.col("queue"), scan.col("type"))
                .min(dispatchAt);
        // the latest dispatch's request id is dealt by its own segment too, and interned there before the sites are built
        return new SegmentDeal(runs, keys, expectedSites, STRING_BYTES, S_REQUEST, requests);
    }

    private TopicFold.TopicQuery<AggregateResult> answersQuery(TopicFold fold) {
        List<OffsetRange> ranges = fold.partitions(BatonTopics.RESULTS);
        int expectedRequests = expectedGroups(ranges, 1); // a request is answered once, but for unmatched copies
        // a request is answered once but for retried publications: its rows seldom meet again in a page
        PageStrings[] requests = PageStrings.perWorkerLastOnly(fold.threads());
        return new TopicFold.TopicQuery<>(ranges, OUTCOME_COLUMNS, worker -> new OutcomeDecoder(requests[worker]), scan -> {
            scan.filter(RangeFilter.between(scan.col("unmatched"), 0, 0));
            ColumnRef first = scan.project("first", Expr.sub(Expr.lit(0), scan.col("order")));
            // requests are dealt by the same segments as the sites' request ids were interned in: one dictionary, one id
            RunCombine runs = scan.combineRuns("request", scan.col("request"))
                    .maxBy(first, scan.col("completed"), scan.col("reason"), scan.col("at"));
            SegmentDeal deal = new SegmentDeal(runs, requests, expectedRequests, STRING_BYTES);
            scan.into(deal);
            return scheduler -> deal.result(scheduler, ids);
        });
    }

    /**
     * Where one workflow's events sit, earliest first: scan {@code baton.history} → filter
     * workflow = w (and namespace = n) → hash aggregate by position ({@code partition << 40 | offset})
     * with MIN(at) → sort by time, then position. Each row is {@code [position, at]}.
     */
    List<long[]> workflowPositions(TopicFold fold, String workflowId, String namespace) {
        long workflow = ids.id(workflowId);
        long ns = ids.id(namespace);
        AggregateResult a = fold.query(new TopicFold.TopicQuery<>(fold.partitions(BatonTopics.HISTORY), POSITION_COLUMNS, worker -> new PositionDecoder(), scan -> {
            scan.filter(RangeFilter.between(scan.col("workflow"), workflow, workflow));
            if (namespace != null) {
                scan.filter(RangeFilter.between(scan.col("namespace"), ns, ns));
            }
            HashAggregate agg = HashAggregate.groupBy(scan.col("position"), 64).min(scan.col("at"));
            scan.into(agg);
            return agg::result;
        }), () -> false).value();
        return a.rows() == 0 ? List.of() : new SortLimit(List.of(SortLimit.Order.asc(1)), a.rows()).apply(a);
    }

    /** Groups expected over these ranges at {@code recordsPerGroup}, within [{@value #EXPECTED_GROUPS}, {@value #MAX_EXPECTED_GROUPS}]. */
    private static int expectedGroups(List<OffsetRange> ranges, int recordsPerGroup) {
        long records = ranges.stream().mapToLong(OffsetRange::offsets).sum();
        return (int) Math.max(EXPECTED_GROUPS, Math.min(MAX_EXPECTED_GROUPS, records / recordsPerGroup));
    }

    static long position(int partition, long offset) {
        return (long) partition << POSITION_OFFSET_BITS | offset;
    }

    /**
     * A record's place in a topic as one long that no other record of the topic shares: its offset, then its partition
     * (a site's or a request's records sit in one partition, where this orders them by offset as before; a key written to
     * two partitions has its records at one offset ordered by partition rather than tied).
     */
    static long order(int partition, long offset) {
        if (partition >>> ORDER_PARTITION_BITS != 0 || offset > MAX_ORDER_OFFSET) {
            throw new IllegalArgumentException("a record's order needs a partition below " + (1 << ORDER_PARTITION_BITS)
                    + " and an offset up to " + MAX_ORDER_OFFSET + ", was partition " + partition + " offset " + offset);
        }
        return offset << ORDER_PARTITION_BITS | partition;
    }

    static int partitionOf(long position) {
        return (int) (position >>> POSITION_OFFSET_BITS);
    }

    static long offsetOf(long position) {
        return position & ((1L << POSITION_OFFSET_BITS) - 1);
    }

    /*
     * The decoders below are one per worker (TopicPageSource.RowDecoders), not thread-locals: worker 0 runs on the
     * calling thread, and a thread-local left that thread holding the last query's row and recent strings, which point
     * at the query's dictionary, after its HistoryLog was closed.
     */

    /** A worker's decoder of the sites query, its site keys kept in {@code keys} and its dispatches' request ids in {@code requests}. */
    TopicPageSource.RowDecoder historyDecoder(PageStrings keys, PageStrings requests, boolean scoped) {
        return new HistoryDecoder(keys, requests, scoped);
    }

    /** The dictionary every query of this instance interns into, but for the sites' keys ({@link #siteKeyDictionary}). */
    StringIds dictionary() {
        return ids;
    }

    /** The dictionary of the sites query's keys. */
    StringIds siteKeyDictionary() {
        return siteKeys;
    }

    /** A worker's decoder of history records into {@link #POSITION_COLUMNS}. */
    private final class PositionDecoder implements TopicPageSource.RowDecoder {
        private final ProjectedRow buffer = history.newRow();

        @Override
        public boolean decode(RecordView rec, long[] row) {
            ProjectedRow e = SiteQueries.this.decode(history, BatonTopics.HISTORY, rec, buffer);
            if (e == null) {
                return false;
            }
            row[0] = position(rec.partition(), rec.offset());
            row[1] = e.getLong(H_AT);
            row[2] = id(e, H_WORKFLOW);
            row[3] = id(e, H_NAMESPACE);
            return true;
        }
    }

    /**
     * A worker's decoder of history records into {@link #HISTORY_COLUMNS}: the site key and a dispatch's request id as
     * references into the worker's {@link PageStrings} (their ids are found when their segments are built), the other
     * strings (few: queues, types, namespaces) as ids.
     */
    private final class HistoryDecoder implements TopicPageSource.RowDecoder {
        private final ProjectedRow buffer = history.newRow();
        private final RecentIds recent = new RecentIds(ids, HISTORY_COLUMNS.size());
        private final PageStrings keys;
        /** Apart from the keys: each keeps its last string, which is what lets a run's rows share one key reference. */
        private final PageStrings requests;
        /** Whether the query filters by namespace: only then is the namespace interned. */
        private final boolean scoped;

        HistoryDecoder(PageStrings keys, PageStrings requests, boolean scoped) {
            this.keys = keys;
            this.requests = requests;
            this.scoped = scoped;
        }

        @Override
        public void pageStarts() {
            keys.clear();
            requests.clear();
        }

        @Override
        public boolean decode(RecordView rec, long[] row) {
            if (rec.value() == null) {
                return false;
            }
            // the key checked as decode() checks it, but once per run of a site's records: a repeat of the page's last key is not
            long key = keys.addWellFormed(rec.key());
            if (key == PageStrings.ILL_FORMED) {
                undecodable.incrementAndGet();
                return false;
            }
            ProjectedRow e = decodeValue(history, BatonTopics.HISTORY, rec.value(), buffer);
            if (e == null) {
                return false;
            }
            int kind = e.getInt(H_KIND);
            boolean dispatch = kind == HistoryKind.DISPATCHED.ordinal();
            row[0] = order(rec.partition(), rec.offset());
            row[1] = kind;
            row[2] = dispatch ? 1 : 0;
            row[3] = e.getLong(H_AT);
            row[4] = key;
            // the namespace only for a scope's filter; a site's workflow is in its key, and no answer reads it from the value
            row[5] = scoped ? recentId(5, e, H_NAMESPACE) : StringIds.NULL;
            // only a dispatch's own fields are read by the aggregate: the rest are not interned
            row[6] = dispatch ? reference(requests, e, H_REQUEST) : PageStrings.NULL;
            row[7] = dispatch ? e.getInt(H_ATTEMPT) : 0;
            row[8] = dispatch ? recentId(8, e, H_QUEUE) : StringIds.NULL;
            row[9] = dispatch ? recentId(9, e, H_TYPE) : StringIds.NULL;
            return true;
        }

        private long recentId(int column, ProjectedRow e, int slot) {
            return e.isNull(slot) ? StringIds.NULL : recent.idOfDecodedForm(column, e.stringArray(slot), e.stringOffset(slot), e.stringLength(slot));
        }
    }

    /** A worker's decoder of outcomes into {@link #OUTCOME_COLUMNS}: the request id as a reference into its {@link PageStrings}. */
    private final class OutcomeDecoder implements TopicPageSource.RowDecoder {
        private final ProjectedRow buffer = outcomes.newRow();
        private final PageStrings requests;

        OutcomeDecoder(PageStrings requests) {
            this.requests = requests;
        }

        @Override
        public void pageStarts() {
            requests.clear();
        }

        @Override
        public boolean decode(RecordView rec, long[] row) {
            ProjectedRow o = SiteQueries.this.decode(outcomes, BatonTopics.RESULTS, rec, buffer);
            if (o == null) {
                return false;
            }
            boolean unmatched = o.getBoolean(O_UNMATCHED);
            row[0] = order(rec.partition(), rec.offset());
            row[1] = unmatched ? PageStrings.NULL : reference(requests, o, O_REQUEST);
            row[2] = o.getInt(O_STATUS) == OutcomeStatus.COMPLETED.ordinal() ? 1 : 0;
            row[3] = unmatched ? StringIds.NULL : reasonPrefixId(o, O_REASON);
            row[4] = o.getLong(O_AT);
            row[5] = unmatched ? 1 : 0;
            return true;
        }
    }

    /*
     * A value string is kept in the form the reference compares: Avro's reader decodes an ill-formed string with
     * replacement characters, so two such strings can be one string there; kept by their raw bytes they would be two
     * (Utf8Keys.decoded). The row's slot is a view of the record's value, so the bytes are copied once, where kept.
     */

    /** Slot {@code slot}'s string, decoded form, added to {@code page} ({@link PageStrings#NULL} when null). */
    private static long reference(PageStrings page, ProjectedRow r, int slot) {
        return r.isNull(slot) ? PageStrings.NULL : page.addDecodedForm(r.stringArray(slot), r.stringOffset(slot), r.stringLength(slot));
    }

    /** The dictionary id of slot {@code slot}'s string, decoded form. */
    private long id(ProjectedRow r, int slot) {
        if (r.isNull(slot)) {
            return StringIds.NULL;
        }
        byte[] b = r.stringArray(slot);
        int from = r.stringOffset(slot);
        int length = r.stringLength(slot);
        if (Utf8Keys.wellFormed(b, from, from + length)) {
            return ids.id(b, from, length);
        }
        byte[] decoded = Utf8Keys.decoded(b, from, length);
        return ids.id(decoded, 0, decoded.length);
    }

    /**
     * The id of slot {@code slot}'s reason prefix ("terminal: no" → "terminal:"; a reason without a colon is its own
     * prefix), decoded form, read from its bytes without making strings.
     */
    private long reasonPrefixId(ProjectedRow r, int slot) {
        if (r.isNull(slot)) {
            return StringIds.NULL;
        }
        byte[] b = r.stringArray(slot);
        int from = r.stringOffset(slot);
        int length = r.stringLength(slot);
        if (!Utf8Keys.wellFormed(b, from, from + length)) {
            b = Utf8Keys.decoded(b, from, length);
            from = 0;
            length = b.length;
        }
        for (int i = from; i < from + length; i++) {
            if (b[i] == ':') {
                return ids.id(b, from, i + 1 - from); // ':' is one byte in UTF-8 and no byte of a longer character
            }
        }
        return ids.id(b, from, length);
    }

    private ProjectedRow decode(ProjectedReader reader, String topic, RecordView rec, ProjectedRow row) {
        if (rec.value() == null) {
            return null;
        }
        if (reader == history && !Utf8Keys.wellFormed(rec.key())) {
            undecodable.incrementAndGet(); // not a key Baton writes, and two such keys can decode alike (Utf8Keys)
            return null;
        }
        return decodeValue(reader, topic, rec.value(), row);
    }

    /** {@code value} (not null) decoded into {@code row}, or null when it cannot be (a history record's then counted). */
    private ProjectedRow decodeValue(ProjectedReader reader, String topic, ByteBuffer value, ProjectedRow row) {
        try {
            reader.decode(topic, value, row);
            return row;
        } catch (UndecodableRecordException e) {
            if (reader == history) {
                undecodable.incrementAndGet(); // a dead letter when it was written; a scan reports, it does not repair
            }
            return null;
        }
    }
}
