package dev.baton.streams.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A reference model of the site state machine: plain Java, no Kafka, no Avro, no tokens — a token is
 * the generation it was issued to. It states what DESIGN §4 and docs/decisions.md ("The site state
 * machine, as a model") say every input must do, and {@code SiteMachineProperties} drives it and the
 * real topology with the same random inputs and compares what each makes visible: outcomes per
 * request id, tasks per generation, stops per token.
 *
 * <p>Written to be read against the rules table, not against the processor's code: one method per
 * input, each a short list of cases. Not thread-safe.
 */
public final class SiteModel {

    /** The streams app's settings the model needs; {@code deadlineRecords}: at-least-once, deadlines fire from records read back. */
    public record Config(long heartbeatWindowMs, long dedupeWindowMs, long workerStaleMs, int transportLossBudget, Policy defaultPolicy,
                         Map<String, Timeouts> queueTimeouts, Set<String> declaredQueues, Set<String> declaredNodes, String explodingQueue,
                         int maxWaiters, boolean deadlineRecords) {
    }

    /** A retry policy: backoff {@code initial * coefficient^(attempt-1)}, at most {@code maxInterval}; {@code maxAttempts} 0 = no limit. */
    public record Policy(long initialMs, double coefficient, long maxIntervalMs, int maxAttempts) {
        long backoffAfter(int attempt) {
            return (long) Math.min(initialMs * Math.pow(Math.max(1.0, coefficient), attempt - 1), maxIntervalMs);
        }
    }

    /** An activity's timeouts, each null when off. */
    public record Timeouts(Long scheduleToStart, Long startToClose, Long scheduleToClose, Long heartbeat) {
        static final Timeouts NONE = new Timeouts(null, null, null, null);

        Timeouts orElse(Timeouts queue) {
            if (queue == null) {
                return this;
            }
            return new Timeouts(first(scheduleToStart, queue.scheduleToStart), first(startToClose, queue.startToClose),
                    first(scheduleToClose, queue.scheduleToClose), first(heartbeat, queue.heartbeat));
        }

        private static Long first(Long a, Long b) {
            return a != null ? a : b;
        }
    }

    /** A caller's request to run {@code attempt} of {@code site}; {@code policy} null for the default. */
    public record Request(String requestId, String site, int attempt, String idempotencyKey, String queue, String node,
                          Timeouts timeouts, Policy policy) {
    }

    /** What a worker reports. */
    public enum ReportKind { LEASED, HEARTBEAT, COMPLETED, FAILED, PARKED }

    /** A token, as the generation it was issued to; {@code epoch} counts the site's rows (a deleted site starts a new one). */
    public record TokenId(String site, int epoch, int attempt, int generation) {
    }

    /**
     * A worker's report. {@code token} null means forged; {@code claimedAttempt}/{@code claimedGeneration}
     * are what the report says it is about. {@code failsStep}: deciding it throws, as a bug would.
     * {@code details}: a lease's or heartbeat's checkpoint, null for none. {@code failure}: the type of
     * a failure report's structured failure, null for none.
     */
    public record Report(String site, ReportKind kind, TokenId token, int claimedAttempt, int claimedGeneration, String workerId,
                         String reason, String output, boolean failsStep, String details, String failure) {
    }

    /** Something the streams app makes visible. */
    public sealed interface Effect permits Answer, Task, Stop {
    }

    /**
     * An outcome on {@code baton.results}; {@code reason} is a {@link ReasonClass} or a worker's normalised reason;
     * {@code failure} the type of the worker's structured failure that failed the run, null when none.
     */
    public record Answer(String requestId, boolean completed, String reason, int attempt, String output, boolean unmatched, String failure)
            implements Effect {
    }

    /**
     * A task published for a generation; {@code lastDetails} is the checkpoint it hands over: the
     * details of the run's last current heartbeat, across generations and policy retries, none for a
     * new run.
     */
    public record Task(String site, int epoch, int attempt, int generation, String node, String lastDetails) implements Effect {
    }

    /** A stop sent to {@code workerId} for the run holding {@code token}. */
    public record Stop(String workerId, TokenId token) implements Effect {
    }

    enum Status { PENDING, LEASED, BACKOFF, RESOLVED }

    /** Deadline kinds in firing order at one instant; report-bound ones wait for the task's own clock tick. */
    enum Deadline {
        HEARTBEAT(true), START_TO_CLOSE(true), SCHEDULE_TO_START(true), SCHEDULE_TO_CLOSE(true), RETRY(false), EXPIRE(false);

        final boolean waitsForReports;

        Deadline(boolean waitsForReports) {
            this.waitsForReports = waitsForReports;
        }
    }

    private record Registration(Set<String> queues, Set<String> nodes, boolean draining, long lastSeen) {
    }

    private record Due(String site, Deadline kind, long at) {
    }

    /** One site's row. */
    private static final class Site {
        int epoch;
        int run;
        Status status;
        int attempt;
        int callerAttempt;
        int generation;
        boolean tokenLive;
        String idempotencyKey;
        String queue;
        String node;
        Timeouts timeouts;
        Policy policy;
        List<String> callers = new ArrayList<>();
        String workerId;
        int losses;
        long firstRequestedAt;
        EnumMap<Deadline, Long> deadlines = new EnumMap<>(Deadline.class);
        TokenId endedByHolder;
        /** The callers the last takeover answered superseded, the attempt they held, and the one that took over. */
        List<String> superseded = List.of();
        int supersededAttempt;
        int supersededBy;
        boolean outcomeCompleted;
        String outcomeReason;
        String outcomeOutput;
        String heartbeatDetails;
        String outcomeFailure;

        Site copy() {
            Site c = new Site();
            c.epoch = epoch;
            c.run = run;
            c.status = status;
            c.attempt = attempt;
            c.callerAttempt = callerAttempt;
            c.generation = generation;
            c.tokenLive = tokenLive;
            c.idempotencyKey = idempotencyKey;
            c.queue = queue;
            c.node = node;
            c.timeouts = timeouts;
            c.policy = policy;
            c.callers = new ArrayList<>(callers);
            c.workerId = workerId;
            c.losses = losses;
            c.firstRequestedAt = firstRequestedAt;
            c.deadlines = new EnumMap<>(deadlines);
            c.endedByHolder = endedByHolder;
            c.superseded = superseded;
            c.supersededAttempt = supersededAttempt;
            c.supersededBy = supersededBy;
            c.outcomeCompleted = outcomeCompleted;
            c.outcomeReason = outcomeReason;
            c.outcomeOutput = outcomeOutput;
            c.heartbeatDetails = heartbeatDetails;
            c.outcomeFailure = outcomeFailure;
            return c;
        }

        boolean live() {
            return status != Status.RESOLVED;
        }

        TokenId currentToken(String name) {
            return new TokenId(name, epoch, attempt, generation);
        }
    }

    /** A read-only view of a site for the test's choices. */
    public record SiteView(boolean live, int epoch, int run, int attempt, int callerAttempt, int generation, String idempotencyKey, List<String> callers,
                           List<String> superseded) {
    }

    private final Config config;
    private final Map<String, Site> sites = new HashMap<>();
    private final Map<String, Integer> epochs = new HashMap<>();
    private final Map<String, Integer> runs = new HashMap<>();
    private final Map<String, Registration> workers = new HashMap<>();
    private long now;
    private long reportsRead = Long.MIN_VALUE;
    private List<Effect> out;

    public SiteModel(Config config) {
        this.config = config;
    }

    /** The streams app's wall clock for the inputs that follow. */
    public void at(long nowMillis) {
        now = nowMillis;
    }

    public Optional<SiteView> site(String name) {
        Site s = sites.get(name);
        return s == null ? Optional.empty() : Optional.of(new SiteView(s.live(), s.epoch, s.run, s.attempt, s.callerAttempt, s.generation,
                s.idempotencyKey, List.copyOf(s.callers), s.superseded));
    }

    /** Sites with a row that is not resolved. */
    public List<String> liveSites() {
        return sites.entrySet().stream().filter(e -> e.getValue().live()).map(Map.Entry::getKey).sorted().toList();
    }

    // ---- registrations (the census) ----

    public void register(String workerId, Set<String> queues, Set<String> nodes, boolean draining) {
        workers.put(workerId, new Registration(Set.copyOf(queues), Set.copyOf(nodes), draining, now));
    }

    public void withdraw(String workerId) {
        workers.remove(workerId);
    }

    private int liveWorkers(String queue, String node) {
        long horizon = now - config.workerStaleMs();
        return (int) workers.values().stream().filter(w -> !w.draining() && w.lastSeen() >= horizon && w.queues().contains(queue)
                && (node == null || w.nodes().contains(node))).count();
    }

    /** A crash of the stream task: durable state is as of the last commit (the caller replays the rest); what was in memory is gone. */
    public void crash() {
        reportsRead = Long.MIN_VALUE;
    }

    // ---- dispatch commands ----

    public List<Effect> dispatch(Request r) {
        return step(() -> {
            if (r.attempt() < 1 || !validName(r.queue()) || (r.node() != null && !validName(r.node()))) {
                answer(r.requestId(), false, ReasonClass.INVALID, Math.max(0, r.attempt()), null, false);
            } else if (r.queue().equals(config.explodingQueue())) {
                answer(r.requestId(), false, ReasonClass.INTERNAL_ERROR, r.attempt(), null, false);
            } else if (!config.declaredQueues().contains(r.queue())) {
                answer(r.requestId(), false, ReasonClass.UNKNOWN_QUEUE, r.attempt(), null, false);
            } else if (r.node() != null && !config.declaredNodes().contains(r.queue() + "/" + r.node())) {
                answer(r.requestId(), false, ReasonClass.UNKNOWN_NODE, r.attempt(), null, false);
            } else {
                requested(r);
            }
        });
    }

    private void requested(Request r) {
        Site held = sites.get(r.site());
        if (held == null) {
            startRun(r.site(), null, r, now);
        } else if (held.superseded.contains(r.requestId())) {
            answer(r.requestId(), false, ReasonClass.SUPERSEDED, held.supersededAttempt, null, false);
        } else if (held.callers.contains(r.requestId())) {
            if (!held.live()) { // the same request again, whatever this copy names: its first copy's answer
                answer(r.requestId(), held.outcomeCompleted, held.outcomeReason, held.attempt, held.outcomeOutput, false, held.outcomeFailure);
            }
        } else if (r.attempt() > held.attempt) {
            if (held.live()) {
                supersede(r.site(), held, r.attempt());
                startRun(r.site(), held, r, held.firstRequestedAt);
            } else {
                startRun(r.site(), held, r, now);
            }
        } else if (r.attempt() < held.callerAttempt) {
            answer(r.requestId(), false, ReasonClass.ATTEMPT_REFUSED, r.attempt(), null, false);
        } else if (!r.idempotencyKey().equals(held.idempotencyKey)) {
            answer(r.requestId(), false, ReasonClass.SITE_COLLISION, r.attempt(), null, false);
        } else if (!held.live()) {
            answer(r.requestId(), held.outcomeCompleted, held.outcomeReason, held.attempt, held.outcomeOutput, false, held.outcomeFailure);
        } else if (held.callers.size() - 1 >= config.maxWaiters()) {
            answer(r.requestId(), false, ReasonClass.CALLERS_FULL, r.attempt(), null, false);
        } else {
            held.callers.add(r.requestId());
        }
    }

    public List<Effect> cancel(String site) {
        return step(() -> {
            Site s = sites.get(site);
            if (s != null && s.live()) {
                stopHolder(site, s);
                resolve(site, s, false, ReasonClass.CANCELLED, null);
            }
        });
    }

    // ---- worker reports ----

    public List<Effect> report(Report r) {
        Site before = sites.get(r.site());
        Site snapshot = before == null ? null : before.copy();
        List<Effect> effects = step(() -> decide(r));
        if (r.failsStep()) {
            // Deciding threw: the whole step is dropped, and the report is only a dead letter.
            if (snapshot == null) {
                sites.remove(r.site());
            } else {
                sites.put(r.site(), snapshot);
            }
            return List.of();
        }
        return effects;
    }

    private void decide(Report r) {
        Site s = sites.get(r.site());
        if (s == null) {
            return; // unknown site: refused, or a completion kept as a dead letter; nothing anyone sees
        }
        // The attempt and generation a report claims are part of what its token proves: the current token
        // claimed for another generation was never issued for it, and is forged.
        boolean current = s.tokenLive && s.currentToken(r.site()).equals(r.token()) && r.token().attempt() == r.claimedAttempt()
                && r.token().generation() == r.claimedGeneration();
        boolean issued = r.token() != null && r.token().site().equals(r.site()) && r.token().epoch() == s.epoch
                && r.token().attempt() == r.claimedAttempt() && r.token().generation() == r.claimedGeneration();
        if (current) {
            currentReport(r, s);
        } else if (issued) {
            lateReport(r, s);
        }
        // forged: refused and recorded, nothing else
    }

    private void currentReport(Report r, Site s) {
        switch (r.kind()) {
            case LEASED, HEARTBEAT -> {
                if (r.details() != null) {
                    s.heartbeatDetails = r.details();
                }
                if (s.status == Status.LEASED) {
                    arm(s, Deadline.HEARTBEAT, now + heartbeatWindow(s));
                } else {
                    s.status = Status.LEASED;
                    s.workerId = r.workerId();
                    s.deadlines.remove(Deadline.SCHEDULE_TO_START);
                    arm(s, Deadline.HEARTBEAT, now + heartbeatWindow(s));
                    if (s.timeouts.startToClose() != null) {
                        arm(s, Deadline.START_TO_CLOSE, now + s.timeouts.startToClose());
                    }
                }
            }
            case COMPLETED -> {
                s.endedByHolder = r.token();
                resolve(r.site(), s, true, null, r.output());
            }
            case FAILED -> {
                if (r.details() != null) {
                    s.heartbeatDetails = r.details(); // the failed attempt's last checkpoint, for the next
                }
                s.endedByHolder = r.token();
                fail(r.site(), s, ReasonClass.normalizeWorkerReason(r.reason()), r.failure());
            }
            default -> { // PARKED: the holder gave it back; the same attempt again, nothing consumed, nobody woken
                if (r.details() != null) {
                    s.heartbeatDetails = r.details();
                }
                s.endedByHolder = r.token();
                s.tokenLive = false;
                redeliver(r.site(), s);
            }
        }
    }

    private void lateReport(Report r, Site s) {
        boolean keepAlive = r.kind() == ReportKind.LEASED || r.kind() == ReportKind.HEARTBEAT;
        if (keepAlive && r.token().equals(s.endedByHolder)) {
            return; // the slow half of a pair whose other half ended the generation
        }
        if (!s.live() && (r.kind() == ReportKind.COMPLETED || r.kind() == ReportKind.FAILED)) {
            if (r.claimedAttempt() < s.callerAttempt || r.claimedAttempt() > s.attempt) {
                return; // an earlier run's attempt: its callers were answered, this run's never asked for it
            }
            boolean completed = r.kind() == ReportKind.COMPLETED;
            answer(s.callers.get(0), completed, completed ? null : ReasonClass.normalizeWorkerReason(r.reason()), r.claimedAttempt(),
                    r.output(), true, completed ? null : r.failure());
            return;
        }
        out.add(new Stop(r.workerId(), r.token()));
    }

    // ---- time ----

    /**
     * One punctuation at {@code t}: the deadlines that passed fire (those waiting for reports only
     * up to the last clock tick read); if a report-bound deadline passed the wall clock but not the
     * ticks, the task writes a tick, reads it back at once (nothing is behind here) and fires again.
     */
    public List<Effect> punctuate(long t) {
        now = t;
        if (config.deadlineRecords()) {
            // At-least-once: every due deadline fires when its deadline record is read back, and reading
            // one proves every report before it was read (it is its own clock tick): all of them in
            // one pass, in (time, kind) order, so a schedule-to-close due with a retry ends the run
            // before the retry starts another attempt.
            reportsRead = t;
            return fireDue(t);
        }
        List<Effect> effects = new ArrayList<>(fireDue(Math.min(t, reportsRead)));
        boolean awaitsReports = sites.values().stream().flatMap(s -> s.deadlines.entrySet().stream())
                .anyMatch(e -> e.getKey().waitsForReports && e.getValue() <= t && e.getValue() > reportsRead);
        if (awaitsReports) {
            reportsRead = t;
            effects.addAll(fireDue(t));
        }
        return effects;
    }

    private List<Effect> fireDue(long reportsHorizon) {
        List<Due> due = new ArrayList<>();
        sites.forEach((name, s) -> s.deadlines.forEach((kind, at) -> {
            if (at <= now && (!kind.waitsForReports || at <= reportsHorizon)) {
                due.add(new Due(name, kind, at));
            }
        }));
        due.sort(Comparator.comparingLong(Due::at).thenComparing(Due::kind).thenComparing(Due::site));
        List<Effect> effects = new ArrayList<>();
        for (Due d : due) {
            Site s = sites.get(d.site());
            if (s != null && Long.valueOf(d.at()).equals(s.deadlines.get(d.kind()))) {
                effects.addAll(step(() -> fire(d.site(), s, d.kind())));
            }
        }
        return effects;
    }

    private void fire(String name, Site s, Deadline kind) {
        s.deadlines.remove(kind);
        switch (kind) {
            case EXPIRE -> sites.remove(name);
            case HEARTBEAT -> {
                if (s.status == Status.LEASED) {
                    s.losses++;
                    if (s.losses > config.transportLossBudget()) {
                        stopHolder(name, s);
                        resolve(name, s, false, ReasonClass.TRANSPORT_EXHAUSTED, null);
                    } else {
                        stopHolder(name, s);
                        s.tokenLive = false;
                        redeliver(name, s);
                    }
                }
            }
            case START_TO_CLOSE -> {
                stopHolder(name, s);
                fail(name, s, ReasonClass.START_TO_CLOSE);
            }
            case SCHEDULE_TO_START -> {
                if (s.status == Status.PENDING) {
                    resolve(name, s, false, liveWorkers(s.queue, s.node) == 0 ? ReasonClass.UNSERVED : ReasonClass.SATURATED, null);
                }
            }
            case SCHEDULE_TO_CLOSE -> {
                stopHolder(name, s);
                resolve(name, s, false, ReasonClass.SCHEDULE_TO_CLOSE, null);
            }
            default -> { // RETRY
                if (s.status == Status.BACKOFF) {
                    s.deadlines.clear();
                    s.attempt++;
                    s.generation = 1;
                    s.losses = 0;
                    s.workerId = null;
                    beginAttempt(name, s);
                }
            }
        }
    }

    // ---- the moves ----

    private void startRun(String name, Site previous, Request r, long firstRequestedAt) {
        Site s = new Site();
        if (previous == null) {
            s.epoch = epochs.merge(name, 1, Integer::sum);
        } else {
            s.epoch = previous.epoch;
            s.endedByHolder = previous.endedByHolder;
            s.superseded = previous.superseded;
            s.supersededAttempt = previous.supersededAttempt;
            s.supersededBy = previous.supersededBy;
        }
        s.run = runs.merge(name, 1, Integer::sum);
        s.attempt = r.attempt();
        s.callerAttempt = r.attempt();
        s.generation = 1;
        s.idempotencyKey = r.idempotencyKey();
        s.queue = r.queue();
        s.node = r.node();
        s.timeouts = (r.timeouts() == null ? Timeouts.NONE : r.timeouts()).orElse(config.queueTimeouts().get(r.queue()));
        s.policy = r.policy();
        s.callers.add(r.requestId());
        s.firstRequestedAt = firstRequestedAt;
        sites.put(name, s);
        beginAttempt(name, s);
    }

    private void beginAttempt(String name, Site s) {
        if (s.timeouts.scheduleToStart() != null) {
            arm(s, Deadline.SCHEDULE_TO_START, now + s.timeouts.scheduleToStart());
        }
        if (s.timeouts.scheduleToClose() != null) {
            arm(s, Deadline.SCHEDULE_TO_CLOSE, s.firstRequestedAt + s.timeouts.scheduleToClose());
        }
        publish(name, s);
    }

    private void redeliver(String name, Site s) {
        s.generation++;
        s.workerId = null;
        s.deadlines.remove(Deadline.HEARTBEAT);
        s.deadlines.remove(Deadline.START_TO_CLOSE);
        publish(name, s);
    }

    private void publish(String name, Site s) {
        s.status = Status.PENDING;
        s.tokenLive = true;
        out.add(new Task(name, s.epoch, s.attempt, s.generation, s.node, s.heartbeatDetails));
    }

    private void fail(String name, Site s, String reason) {
        fail(name, s, reason, null);
    }

    /** {@code failure}: the worker's structured failure, answered if the run resolves with it; a retried one is only history. */
    private void fail(String name, Site s, String reason, String failure) {
        Policy p = s.policy != null ? s.policy : config.defaultPolicy();
        boolean retry = reason.startsWith(ReasonClass.RETRYABLE) && (p.maxAttempts() == 0 || s.attempt < p.maxAttempts());
        if (!retry) {
            resolve(name, s, false, reason, null, failure);
            return;
        }
        s.tokenLive = false;
        s.deadlines.remove(Deadline.HEARTBEAT);
        s.deadlines.remove(Deadline.START_TO_CLOSE);
        s.deadlines.remove(Deadline.SCHEDULE_TO_START);
        s.status = Status.BACKOFF;
        s.workerId = null;
        arm(s, Deadline.RETRY, now + p.backoffAfter(s.attempt));
    }

    private void resolve(String name, Site s, boolean completed, String reason, String output) {
        resolve(name, s, completed, reason, output, null);
    }

    private void resolve(String name, Site s, boolean completed, String reason, String output, String failure) {
        s.tokenLive = false;
        s.deadlines.clear();
        s.status = Status.RESOLVED;
        s.outcomeCompleted = completed;
        s.outcomeReason = reason;
        s.outcomeOutput = output;
        s.outcomeFailure = failure;
        s.heartbeatDetails = null;
        arm(s, Deadline.EXPIRE, now + config.dedupeWindowMs());
        for (String caller : s.callers) {
            answer(caller, completed, reason, s.attempt, output, false, failure);
        }
    }

    private void supersede(String name, Site held, int byAttempt) {
        stopHolder(name, held);
        held.tokenLive = false;
        held.deadlines.clear();
        for (String caller : held.callers) {
            answer(caller, false, ReasonClass.SUPERSEDED, held.attempt, null, false);
        }
        held.superseded = List.copyOf(held.callers);
        held.supersededAttempt = held.attempt;
        held.supersededBy = byAttempt;
    }

    private void stopHolder(String name, Site s) {
        if (s.tokenLive && s.workerId != null) {
            out.add(new Stop(s.workerId, s.currentToken(name)));
        }
    }

    private void answer(String requestId, boolean completed, String reason, int attempt, String output, boolean unmatched) {
        answer(requestId, completed, reason, attempt, output, unmatched, null);
    }

    private void answer(String requestId, boolean completed, String reason, int attempt, String output, boolean unmatched, String failure) {
        out.add(new Answer(requestId, completed, reason, attempt, output, unmatched, failure));
    }

    private void arm(Site s, Deadline kind, long at) {
        s.deadlines.put(kind, at);
    }

    private long heartbeatWindow(Site s) {
        return s.timeouts.heartbeat() != null ? s.timeouts.heartbeat() : config.heartbeatWindowMs();
    }

    private List<Effect> step(Runnable decision) {
        out = new ArrayList<>();
        decision.run();
        List<Effect> effects = out;
        out = null;
        return effects;
    }

    private static boolean validName(String name) {
        return name != null && name.matches("[A-Za-z0-9_-]{1,100}");
    }
}
