package dev.baton.morsel.history;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import dev.baton.morsel.kafka.ScanTimings;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Recovery from the logs alone. A site is <em>dangling</em> when history shows it dispatched, no
 * outcome answers its latest request, and the streams app holds no state for it (its changelog has
 * no live entry) — after lost or wiped state, nothing would ever resolve it. Re-dispatching sends
 * the original command record again, byte for byte, so the idempotency key and request id are
 * unchanged and the original caller's pending future gets the outcome.
 */
public final class Replay {

    /** What the logs say. */
    public record Report(int sites, int resolved, int live, List<SiteTrail> dangling, int parked, Map<String, Integer> byOutcome) {
    }

    private Replay() {
    }

    public static Report analyse(HistoryLog log, HistoryLog.Scope scope, String applicationId) {
        return analyse(log, scope, applicationId, ScanTimings.off());
    }

    /** As {@link #analyse(HistoryLog, HistoryLog.Scope, String)}, recording its phases in {@code timings}. */
    public static Report analyse(HistoryLog log, HistoryLog.Scope scope, String applicationId, ScanTimings timings) {
        // the changelog is read on the log's second fold while history and results are scanned as one job on its first
        CompletableFuture<Map<String, Boolean>> liveRead = log.liveSitesBeside(applicationId);
        SiteQueries.SitesWithAnswers s = timings.time("sites and answers (history, results)", () -> log.sitesWithAnswers(scope));
        Map<String, Boolean> live = timings.time("wait for the changelog", () -> Futures.join(liveRead));
        long start = System.nanoTime();
        // Sites stay rows of ids: only the unanswered ones become strings and trails (millions of
        // sites as objects took more than a 2 GiB heap at 10 million history records).
        int dispatched = 0;
        int resolved = 0;
        int liveCount = 0;
        int parked = 0;
        List<SiteTrail> dangling = new ArrayList<>();
        Map<Long, int[]> byOutcomeId = new HashMap<>();
        long lastOutcome = 0;
        int[] lastCount = null; // most answers end as the one before (completed): counted without a boxed key
        // How many dispatched sites name each answer's request id: a request id is the dispatcher's choice, and an answer
        // several sites claim is checked against the site its outcome names (below) before any of them counts as resolved.
        // Each dispatched site's answer is looked up once, here, and kept for the pass below.
        int[] claims = new int[s.answers().rows()];
        int[] answerOf = new int[s.sites().rows()];
        boolean shared = false;
        for (int i = 0; i < s.sites().rows(); i++) {
            if (s.dispatched(i)) {
                int a = s.answerOf(s.request(i));
                answerOf[i] = a;
                if (a >= 0 && ++claims[a] > 1) {
                    shared = true;
                }
            }
        }
        Set<String> answeredSites = Set.of();
        if (shared) {
            Set<String> sharedRequests = new HashSet<>();
            for (int i = 0; i < s.sites().rows(); i++) {
                if (s.dispatched(i)) {
                    int a = answerOf[i];
                    if (a >= 0 && claims[a] > 1) {
                        sharedRequests.add(s.trail(i).requestId);
                    }
                }
            }
            answeredSites = timings.time("answers of shared request ids (results)", () -> log.answeredSites(sharedRequests));
        }
        for (int i = 0; i < s.sites().rows(); i++) {
            if (!s.dispatched(i)) {
                continue;
            }
            dispatched++;
            int a = answerOf[i];
            if (a >= 0 && claims[a] > 1) {
                SiteTrail t = s.trail(i);
                if (t.siteKey == null || !answeredSites.contains(HistoryLog.siteRequest(t.siteKey, t.requestId))) {
                    a = -1; // another site's answer under the same request id
                }
            }
            if (a >= 0) {
                resolved++;
                long outcome = s.outcome(a);
                if (lastCount == null || outcome != lastOutcome) {
                    lastOutcome = outcome;
                    lastCount = byOutcomeId.computeIfAbsent(outcome, o -> new int[1]);
                }
                lastCount[0]++;
                continue;
            }
            if (s.parked(i)) {
                parked++;
            }
            String key = s.siteKey(i); // null for records written without a key: no live state names them
            if (key != null && Boolean.TRUE.equals(live.get(key))) {
                liveCount++;
            } else {
                dangling.add(s.trail(i));
            }
        }
        Map<String, Integer> byOutcome = new TreeMap<>();
        byOutcomeId.forEach((id, n) -> byOutcome.merge(s.outcomeName(id), n[0], Integer::sum));
        if (!dangling.isEmpty() && log.resultsTrimmed()) {
            // Retention trimmed baton.results (kept 7 days by default, history forever): an outcome no longer there may
            // still be in history, and a site whose row the dedupe window let go would run again if re-sent.
            Map<String, String> requests = new HashMap<>();
            dangling.forEach(t -> {
                if (t.siteKey != null && t.requestId != null) {
                    requests.put(t.siteKey, t.requestId);
                }
            });
            Set<String> ended = timings.time("resolved in history (results trimmed)", () -> log.resolvedInHistory(requests));
            if (!ended.isEmpty()) {
                dangling.removeIf(t -> t.siteKey != null && ended.contains(t.siteKey));
                resolved += ended.size();
                byOutcome.merge("resolved (outcome only in history)", ended.size(), Integer::sum);
            }
        }
        dangling.sort(Comparator.comparing(t -> t.siteKey, Comparator.nullsFirst(Comparator.naturalOrder())));
        timings.done("report", start);
        return new Report(dispatched, resolved, liveCount, dangling, parked, byOutcome);
    }

    /** What re-dispatching did. */
    public record Redispatch(int sent, List<String> missing) {
    }

    /** Re-sends each dangling site's original dispatch command; commands no longer in the topic are listed. */
    public static Redispatch redispatch(Map<String, Object> clientConfig, HistoryLog log, List<SiteTrail> dangling)
            throws InterruptedException, ExecutionException {
        Set<String> requests = new HashSet<>();
        Set<String> keyless = new HashSet<>(); // history records written without a key: found by request id alone, as before
        dangling.forEach(t -> {
            if (t.siteKey == null) {
                keyless.add(t.requestId);
            } else {
                requests.add(HistoryLog.siteRequest(t.siteKey, t.requestId));
            }
        });
        Map<String, ConsumerRecord<byte[], byte[]>> commands = new HashMap<>(log.siteCommands(requests));
        if (!keyless.isEmpty()) {
            log.commands(keyless).forEach((request, rec) -> commands.put(HistoryLog.siteRequest(null, request), rec));
        }
        Map<String, Object> p = ClientConfigs.durableProducer(clientConfig);
        List<String> missing = new ArrayList<>();
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (SiteTrail t : dangling) {
                ConsumerRecord<byte[], byte[]> c = commands.get(HistoryLog.siteRequest(t.siteKey, t.requestId));
                if (c == null) {
                    missing.add(t.siteKey);
                    continue;
                }
                sends.add(producer.send(new ProducerRecord<>(c.topic(), null, c.key(), c.value(), c.headers())));
            }
            for (Future<RecordMetadata> f : sends) {
                f.get();
            }
        }
        return new Redispatch(sends.size(), missing);
    }
}
