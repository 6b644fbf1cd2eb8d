package dev.baton.streams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import dev.baton.events.ActivityTask;
import dev.baton.events.Failure;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.Payload;
import dev.baton.events.RetryPolicy;
import dev.baton.events.Timeouts;
import dev.baton.events.WorkerControl;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.events.WorkerStatus;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.SiteKey;
import dev.baton.streams.model.ReasonClass;
import dev.baton.streams.model.SiteModel;
import dev.baton.streams.model.SiteModel.Answer;
import dev.baton.streams.model.SiteModel.Effect;
import dev.baton.streams.model.SiteModel.Stop;
import dev.baton.streams.model.SiteModel.Task;
import dev.baton.streams.model.SiteModel.TokenId;
import dev.baton.streams.model.SiteModel.SiteView;

/**
 * The world of {@link SiteMachineProperties}: the real topology ({@link SiteMachineDriver}) and the
 * {@link SiteModel}, fed the same inputs, plus what the test's callers and workers have seen. At
 * every commit it compares what became visible with what the model expected, and checks the safety
 * invariants on the observations alone; {@link #finish()} lets every site end and checks liveness.
 */
final class SiteMachineWorld implements AutoCloseable {

    static final List<String> SITES = List.of("s0", "s1", "s2", "s3");
    static final List<String> WORKERS = List.of("w1", "w2", "w3");
    static final String CLIENT = "client";

    private final boolean atLeastOnce;
    private final SiteMachineDriver driver;
    private final SiteModel model;

    /** The model's effects since the last commit, to compare with what the commit makes visible. */
    private final List<Effect> expected = new ArrayList<>();
    private int expectedBugLetters;
    /** Visible tasks per site, in order; and each token's generation. */
    private final Map<String, List<ActivityTask>> tasks = new HashMap<>();
    private final Map<String, TokenId> tokenIds = new HashMap<>();
    private final Map<TokenId, String> tokens = new HashMap<>();
    /** Requests sent: the command, and the run it belongs to (site, run number) while the model's row keeps it. */
    private final Map<String, DispatchCommand> requests = new TreeMap<>();
    private final Map<String, Integer> runOfRequest = new HashMap<>();
    /** Non-unmatched outcomes by request id. */
    private final Map<String, List<Answer>> answers = new HashMap<>();
    /** Outputs sent in a completion carrying its site's newest visible token, the only ones an outcome may carry. */
    private final Set<String> outputsWithNewestToken = new HashSet<>();
    /**
     * At-least-once: per site, the last instant the model had a row for it; the sites whose model
     * may disagree with the real row about whether it expired; and the runs (site and run number)
     * the model started while it might (see {@link #uncertainExpiry}).
     */
    private final Map<String, Long> rowSeenAt = new HashMap<>();
    private final Set<String> sitesOfUncertainExpiry = new HashSet<>();
    private final Set<String> uncertainRuns = new HashSet<>();
    private int counter;
    private int commits;
    private int crashes;

    SiteMachineWorld() {
        this(false);
    }

    /**
     * With {@code atLeastOnce}, crashes may leave the state ahead of the input and outputs repeated
     * or lost (see {@link SiteMachineDriver}): what becomes visible is no longer compared with the
     * model, whose idea of the state a crash can make wrong (it only shapes the inputs then). The
     * invariants are checked on the observations alone, and liveness at the end.
     */
    SiteMachineWorld(boolean atLeastOnce) {
        this.atLeastOnce = atLeastOnce;
        this.driver = new SiteMachineDriver(atLeastOnce);
        this.model = new SiteModel(new SiteModel.Config(SiteMachineDriver.HEARTBEAT_WINDOW_MS,
                SiteMachineDriver.DEDUPE_WINDOW_MS, SiteMachineDriver.WORKER_STALE_MS, SiteMachineDriver.TRANSPORT_LOSS_BUDGET,
                policy(SiteMachineDriver.DEFAULT_RETRY), Map.of("mail", new SiteModel.Timeouts(1_500L, null, null, null)),
                Set.of("payments", "mail"), Set.of("payments/n1", "payments/n2"), SiteMachineDriver.EXPLODING_QUEUE, 64, atLeastOnce));
    }

    long steps() {
        return driver.steps();
    }

    // ---- the callers ----

    DispatchCommand.Builder request(String site, int attempt) {
        String requestId = "r" + counter++;
        return DispatchCommand.newBuilder().setKind(DispatchKind.REQUESTED).setSite(siteKey(site).toRef()).setRequestId(requestId)
                .setReplyKey(CLIENT).setAttempt(attempt).setRunId("run").setIdempotencyKey("idem-" + site).setQueue("payments")
                .setActivityType("charge").setInput(payload("in-" + requestId)).setRequestedAtMillis(driver.wallClock());
    }

    void send(DispatchCommand cmd) {
        requests.putIfAbsent(cmd.getRequestId(), cmd);
        boolean uncertain = uncertainExpiry(cmd.getSite().getActivityId());
        model.at(driver.wallClock());
        expect(model.dispatch(toModel(cmd)));
        if (SiteMachineDriver.EXPLODING_QUEUE.equals(cmd.getQueue()) && cmd.getAttempt() >= 1) {
            expectedBugLetters++;
        }
        driver.send(cmd);
        String site = cmd.getSite().getActivityId();
        model.site(site).filter(v -> v.callers().contains(cmd.getRequestId()))
                .ifPresent(v -> runOfRequest.put(cmd.getRequestId(), v.run()));
        model.site(site).ifPresent(v -> {
            rowSeenAt.put(site, driver.wallClock());
            if (uncertain) {
                uncertainRuns.add(site + "#" + v.run());
            }
        });
    }

    /**
     * At-least-once: whether a request to {@code site} now may be decided on another row than the
     * model's. A crash can make the real row resolve later than the model's (its resolution read
     * again after the restart, up to a commit interval later) or lose its expiry's deadline record
     * (requested again), so the real row can outlive the model's by up to a commit interval and a
     * few timer steps: a request sent then may start a run in the model and be refused, joined or
     * answered by the old row in the real site. From then on the model's idea of the site is only a
     * guess until both have surely forgotten it. The model cannot know; the check only re-sends
     * requests of runs started while it is sure.
     */
    private boolean uncertainExpiry(String site) {
        if (!atLeastOnce) {
            return false;
        }
        Long seen = rowSeenAt.get(site);
        if (model.site(site).isEmpty() && seen != null) {
            if (driver.wallClock() - seen <= SiteMachineDriver.COMMIT_INTERVAL_MS + 2 * SiteMachineDriver.TIMER_RESOLUTION_MS) {
                sitesOfUncertainExpiry.add(site);
            } else {
                sitesOfUncertainExpiry.remove(site); // the real row surely expired too
            }
        }
        return sitesOfUncertainExpiry.contains(site);
    }

    /**
     * A request sent again, as a caller unsure whether it went out does; only while the site still
     * remembers its answer. With {@code higher}, the caller instead moves the same request id to the
     * site's next attempt, while its run is live (a takeover by the same request). The same in both
     * modes, except that at-least-once leaves out the runs the model started while it could not know
     * whether the real row had expired ({@link #uncertainExpiry}).
     */
    void resend(int pick, boolean higher) {
        List<String> candidates = requests.keySet().stream().filter(this::stillInItsRun)
                .filter(r -> !uncertainRuns.contains(requests.get(r).getSite().getActivityId() + "#" + runOfRequest.get(r)))
                .filter(r -> !higher || Optional.ofNullable(view(requests.get(r).getSite().getActivityId())).map(SiteView::live).orElse(false))
                .toList();
        if (candidates.isEmpty()) {
            return;
        }
        DispatchCommand cmd = requests.get(candidates.get(Math.floorMod(pick, candidates.size())));
        if (higher) {
            cmd = DispatchCommand.newBuilder(cmd).setAttempt(view(cmd.getSite().getActivityId()).attempt() + 1).build();
        }
        send(cmd);
    }

    /** Whether two answers to one request are the same answer (copies are allowed, at-least-once). */
    private static boolean sameAnswer(Answer a, Answer b) {
        return a.equals(b);
    }

    /** Whether the site still remembers the request's answer: its run is the site's, or the last takeover superseded it. */
    private boolean stillInItsRun(String requestId) {
        Integer run = runOfRequest.get(requestId);
        String site = requests.get(requestId).getSite().getActivityId();
        return run != null && model.site(site).map(v -> v.run() == run || v.superseded().contains(requestId)).orElse(false);
    }

    void cancel(String site) {
        model.at(driver.wallClock());
        expect(model.cancel(site));
        driver.send(DispatchCommand.newBuilder().setKind(DispatchKind.CANCEL).setSite(siteKey(site).toRef()).setRequestId("cancel-" + counter++)
                .setReplyKey(CLIENT).setAttempt(1).setRequestedAtMillis(driver.wallClock()).build());
    }

    SiteView view(String site) {
        return model.site(site).orElse(null);
    }

    // ---- the workers ----

    /** Which token a report carries. */
    enum TokenChoice { NEWEST, EARLIER, OTHER_SITE, FORGED, MISLABELLED }

    void report(String site, WorkerEventKind kind, TokenChoice choice, int pick, String workerId, String reason, boolean failsStep) {
        List<ActivityTask> seen = tasks.getOrDefault(site, List.of());
        ActivityTask task = switch (choice) {
            case NEWEST, MISLABELLED -> seen.isEmpty() ? null : seen.get(seen.size() - 1);
            case EARLIER -> seen.isEmpty() ? null : seen.get(Math.floorMod(pick, seen.size()));
            case OTHER_SITE -> newestOfAnotherSite(site, pick);
            case FORGED -> null;
        };
        String token = task == null ? CompletionToken.random().value() : task.getToken();
        int attempt = task == null ? 1 : task.getAttempt();
        int generation = task == null ? 1 : task.getGeneration() + (choice == TokenChoice.MISLABELLED ? 1 : 0);
        String output = kind == WorkerEventKind.COMPLETED ? "out-" + counter++ : null;
        if (output != null && task != null && choice != TokenChoice.OTHER_SITE && (task == seen.get(seen.size() - 1)
                || atLeastOnce && task.getToken().equals(driver.liveToken(site)))) {
            // At-least-once, the last task seen need not be the newest issued (a crash delivers a newer
            // task, reading the input again re-emits an older one after it): the newest is the one the
            // site's row holds when the completion is sent.
            outputsWithNewestToken.add(output);
        }
        boolean fails = failsStep && kind == WorkerEventKind.COMPLETED;
        // Every other keep-alive carries a checkpoint, so some tasks hand over details and some a run's older ones.
        String details = (kind == WorkerEventKind.HEARTBEAT || kind == WorkerEventKind.LEASED) && counter % 2 == 0 ? "hb-" + counter++ : null;
        String failure = kind == WorkerEventKind.FAILED && counter % 3 != 0 ? "Failure" + counter++ : null;
        model.at(driver.wallClock());
        expect(model.report(new SiteModel.Report(site, SiteModel.ReportKind.valueOf(kind.name()), task == null ? null : tokenIds.get(token),
                attempt, generation, workerId, reason, output, fails, details, failure)));
        if (fails) {
            expectedBugLetters++;
        }
        driver.report(WorkerEvent.newBuilder().setKind(kind).setSite(siteKey(site).toRef()).setAttempt(attempt).setGeneration(generation)
                .setToken(token).setWorkerId(workerId).setOutput(output == null ? null : payload(output)).setReason(reason)
                .setFailure(failure == null ? null : new Failure(failure, "thrown by " + workerId, null, "", null))
                .setHeartbeatDetails(details == null ? null : payload(details).getData()).setHeartbeatContentType(details == null ? null : "text/plain")
                .setAtMillis(driver.wallClock()).build(), fails);
    }

    private ActivityTask newestOfAnotherSite(String site, int pick) {
        List<String> others = tasks.keySet().stream().filter(s -> !s.equals(site)).sorted().toList();
        if (others.isEmpty()) {
            return null;
        }
        List<ActivityTask> theirs = tasks.get(others.get(Math.floorMod(pick, others.size())));
        return theirs.get(theirs.size() - 1);
    }

    void register(String workerId, List<String> queues, List<String> nodes, boolean draining) {
        commit();
        model.at(driver.wallClock());
        model.register(workerId, Set.copyOf(queues), Set.copyOf(nodes), draining);
        driver.register(workerId, WorkerStatus.newBuilder().setWorkerId(workerId).setQueues(queues).setNodeLabels(nodes).setCapacity(4)
                .setInFlight(0).setDraining(draining).setStartedAtMillis(driver.wallClock()).setLastSeenMillis(driver.wallClock()).build());
    }

    void withdraw(String workerId) {
        commit();
        model.withdraw(workerId);
        driver.register(workerId, null);
    }

    // ---- time, commits and crashes ----

    void advance(int timerSteps) {
        commit();
        for (int i = 0; i < timerSteps; i++) {
            expect(model.punctuate(driver.wallClock() + SiteMachineDriver.TIMER_RESOLUTION_MS));
            compare(driver.advance());
            for (String site : SITES) {
                if (model.site(site).isPresent()) {
                    rowSeenAt.put(site, driver.wallClock());
                }
            }
        }
    }

    void commit() {
        compare(driver.commit());
    }

    void crash(long seed) {
        crashes++;
        model.crash();
        if (atLeastOnce) {
            observe(driver.crash(new Random(seed)));
        } else {
            driver.crash();
        }
    }

    // ---- checks ----

    private void expect(List<Effect> effects) {
        expected.addAll(effects);
    }

    /** What became visible equals what the model expected, and every safety invariant holds on it. */
    private void compare(SiteMachineDriver.Visible visible) {
        if (atLeastOnce) {
            observe(visible);
            return;
        }
        commits++;
        List<Effect> model = List.copyOf(expected);
        expected.clear();
        int bugLetters = expectedBugLetters;
        expectedBugLetters = 0;

        List<Task> expectedTasks = model.stream().filter(Task.class::isInstance).map(Task.class::cast).toList();
        assertThat(sorted(visible.tasks().stream().map(this::withoutEpoch).toList()))
                .as("tasks published (commit %d)", commits).isEqualTo(sorted(expectedTasks.stream().map(t -> t.site() + "#" + t.attempt()
                        + "#" + t.generation() + "@" + t.node() + " resumes " + t.lastDetails()).toList()));
        for (ActivityTask t : visible.tasks()) {
            String site = t.getSite().getActivityId();
            Task m = expectedTasks.stream().filter(e -> e.site().equals(site) && e.attempt() == t.getAttempt()
                    && e.generation() == t.getGeneration()).findFirst().orElseThrow();
            TokenId id = new TokenId(site, m.epoch(), t.getAttempt(), t.getGeneration());
            tokenIds.put(t.getToken(), id);
            tokens.put(id, t.getToken());
            List<ActivityTask> seen = tasks.computeIfAbsent(site, k -> new ArrayList<>());
            if (t.getGeneration() > 1 && !seen.isEmpty()) {
                assertThat(t.getAttempt()).as("a redelivery (generation %d of %s) keeps the attempt: no attempt consumed by a loss or a park",
                        t.getGeneration(), site).isEqualTo(seen.get(seen.size() - 1).getAttempt());
            }
            seen.add(t);
        }

        List<Answer> actual = visible.outcomes().stream().map(SiteMachineWorld::observed).toList();
        assertThat(sorted(actual.stream().map(Answer::toString).toList())).as("outcomes (commit %d)", commits)
                .isEqualTo(sorted(model.stream().filter(Answer.class::isInstance).map(Object::toString).toList()));

        List<String> stopsSeen = visible.controls().stream().map(SiteMachineWorld::observed).toList();
        List<String> stopsExpected = model.stream().filter(Stop.class::isInstance).map(Stop.class::cast)
                .map(s -> s.workerId() + " stops " + s.token().site() + "#" + s.token().attempt() + "#" + s.token().generation() + " "
                        + CompletionToken.fingerprint(tokens.get(s.token()))).toList();
        assertThat(sorted(stopsSeen)).as("stops (commit %d)", commits).isEqualTo(sorted(stopsExpected));

        assertThat(visible.deadLetters().stream().filter(d -> d.getReason().contains("processing failed")).count())
                .as("dead letters of decisions that threw: only the injected ones (commit %d): %s", commits, visible.deadLetters())
                .isEqualTo(bugLetters);
        checkSafety(actual);
    }

    /**
     * At-least-once: records what became visible (a task seen again, with the same token, is one
     * task) and checks the invariants on it; the model is not consulted.
     */
    private void observe(SiteMachineDriver.Visible visible) {
        commits++;
        List<Task> modelTasks = expected.stream().filter(Task.class::isInstance).map(Task.class::cast).toList();
        expected.clear();
        expectedBugLetters = 0;
        for (ActivityTask t : visible.tasks()) {
            if (tokenIds.containsKey(t.getToken())) {
                continue;
            }
            String site = t.getSite().getActivityId();
            int epoch = modelTasks.stream().filter(e -> e.site().equals(site) && e.attempt() == t.getAttempt()
                    && e.generation() == t.getGeneration()).map(Task::epoch).findFirst()
                    .orElse(model.site(site).map(SiteView::epoch).orElse(0));
            TokenId id = new TokenId(site, epoch, t.getAttempt(), t.getGeneration());
            tokenIds.put(t.getToken(), id);
            tokens.put(id, t.getToken());
            tasks.computeIfAbsent(site, k -> new ArrayList<>()).add(t);
        }
        checkSafety(visible.outcomes().stream().map(SiteMachineWorld::observed).toList());
    }


    /** The invariants, on what was observed alone. */
    private void checkSafety(List<Answer> newAnswers) {
        for (Answer a : newAnswers) {
            assertThat(a.reason() == null || !a.reason().contains("park")).as("no failure for a park: %s", a).isTrue();
            if (a.unmatched()) {
                continue;
            }
            if (a.completed()) {
                assertThat(outputsWithNewestToken).as("outcome %s carries the output of a completion sent with its site's newest token "
                        + "(no outcome from a revoked or forged token)", a).contains(a.output());
            }
            List<Answer> before = answers.computeIfAbsent(a.requestId(), k -> new ArrayList<>());
            before.stream().filter(b -> !sameAnswer(b, a)).findAny().ifPresent(b -> {
                throw new AssertionError("request " + a.requestId() + " got two different outcomes: " + b + " and " + a);
            });
            before.add(a);
        }
    }

    /**
     * Lets every site end: workers complete each live site's newest task, and time passes for
     * backoffs. Then every request sent has exactly one outcome, the one the model says.
     */
    void finish() {
        if (atLeastOnce) {
            finishAtLeastOnce();
            return;
        }
        commit();
        for (int round = 0; round < 200 && !model.liveSites().isEmpty(); round++) {
            for (String site : model.liveSites()) {
                SiteView v = model.site(site).orElseThrow();
                String token = tokens.get(new TokenId(site, v.epoch(), v.attempt(), v.generation()));
                if (token != null && tasks.get(site).get(tasks.get(site).size() - 1).getToken().equals(token)) {
                    report(site, WorkerEventKind.COMPLETED, TokenChoice.NEWEST, 0, "w1", null, false);
                }
            }
            advance(1);
        }
        assertThat(model.liveSites()).as("every site ended once workers and the clock let it").isEmpty();
        for (String requestId : requests.keySet()) {
            assertThat(answers.getOrDefault(requestId, List.of())).as("outcomes of request %s: exactly one", requestId).isNotEmpty()
                    .allSatisfy(a -> assertThat(a).isEqualTo(answers.get(requestId).get(0)));
        }
    }

    /**
     * At-least-once: workers complete the newest task they saw of every site with a caller still
     * waiting, and time passes, until every request is answered. Then each has its one outcome,
     * delivered once or more, always the same.
     */
    private void finishAtLeastOnce() {
        commit();
        for (int round = 0; round < 200 && !waitingSites().isEmpty(); round++) {
            for (String site : waitingSites()) {
                // The worker holding the live task completes it. Under at-least-once the order tasks
                // became visible in is not the order they were issued in (a crash delivers some
                // outputs, and reading the input again re-emits the others, an older task after a
                // newer one), so the live one is the task whose token the site's row holds.
                List<ActivityTask> seen = tasks.getOrDefault(site, new ArrayList<>());
                String live = driver.liveToken(site);
                seen.stream().filter(t -> t.getToken().equals(live)).findFirst().ifPresent(t -> {
                    seen.remove(t);
                    seen.add(t);
                });
                if (!seen.isEmpty()) {
                    report(site, WorkerEventKind.COMPLETED, TokenChoice.NEWEST, 0, "w1", null, false);
                }
            }
            advance(1);
            commit();
        }
        for (String requestId : requests.keySet()) {
            String site = requests.get(requestId).getSite().getActivityId();
            assertThat(answers.getOrDefault(requestId, List.of())).as("outcomes of request %s: one, maybe delivered more than once "
                    + "(site %s: %s; tasks seen %s)", requestId, site, driver.row(site), tasks.getOrDefault(site, List.of()).stream()
                    .map(t -> t.getAttempt() + "/" + t.getGeneration() + "/" + t.getToken()).toList()).isNotEmpty()
                    .allSatisfy(a -> assertThat(sameAnswer(a, answers.get(requestId).get(0))).as("%s and %s", a, answers.get(requestId).get(0))
                            .isTrue());
        }
    }

    private List<String> waitingSites() {
        return requests.values().stream().filter(r -> !answers.containsKey(r.getRequestId())).map(r -> r.getSite().getActivityId())
                .distinct().sorted().toList();
    }

    String summary() {
        return requests.size() + " requests, " + commits + " commits, " + crashes + " crashes, " + steps() + " steps";
    }

    @Override
    public void close() {
        driver.close();
    }

    // ---- translations ----

    private String withoutEpoch(ActivityTask t) {
        return t.getSite().getActivityId() + "#" + t.getAttempt() + "#" + t.getGeneration() + "@" + t.getNode() + " resumes "
                + (t.getLastHeartbeatDetails() == null ? null : text(t.getLastHeartbeatDetails()));
    }

    private static Answer observed(Outcome o) {
        String output = o.getOutput() == null ? null : text(o.getOutput());
        return new Answer(o.getRequestId(), o.getStatus() == OutcomeStatus.COMPLETED, ReasonClass.of(o.getReason()), o.getAttempt(), output,
                o.getUnmatched(), o.getFailure() == null ? null : o.getFailure().getType());
    }

    private static String observed(WorkerControl c) {
        return c.getWorkerId() + " stops " + c.getSite().getActivityId() + "#" + c.getAttempt() + "#" + c.getGeneration() + " "
                + c.getTokenFingerprint();
    }

    private static SiteModel.Request toModel(DispatchCommand cmd) {
        Timeouts t = cmd.getTimeouts();
        return new SiteModel.Request(cmd.getRequestId(), cmd.getSite().getActivityId(), cmd.getAttempt(), cmd.getIdempotencyKey(),
                cmd.getQueue(), cmd.getNode(), t == null ? null : new SiteModel.Timeouts(t.getScheduleToStartMillis(),
                t.getStartToCloseMillis(), t.getScheduleToCloseMillis(), t.getHeartbeatMillis()),
                cmd.getRetryPolicy() == null ? null : policy(cmd.getRetryPolicy()));
    }

    private static SiteModel.Policy policy(RetryPolicy p) {
        return new SiteModel.Policy(p.getInitialIntervalMillis(), p.getBackoffCoefficient(), p.getMaxIntervalMillis(), p.getMaxAttempts());
    }

    static SiteKey siteKey(String site) {
        return new SiteKey("ns", "wf", site);
    }

    static Payload payload(String text) {
        return new Payload(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), "text/plain");
    }

    private static String text(Payload p) {
        ByteBuffer b = p.getData().duplicate();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static List<String> sorted(List<String> values) {
        return values.stream().sorted(Comparator.naturalOrder()).toList();
    }
}
