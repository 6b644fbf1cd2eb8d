package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.baton.cli.DemoHandlers;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.ActivityRequest.RetryOptions;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.events.ActivityTask;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Payload;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.testkit.BatonProcess;
import dev.baton.testkit.InvariantChecker;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientIds;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Worker crash, drain, retries, unserved queues and cancellation on the embedded broker, workers in their own JVMs. */
class FailureSemanticsIT {

    private static LocalCluster cluster;
    private static DispatchClient client;
    private static final CountDownLatch observedCancel = new CountDownLatch(1);

    @BeforeAll
    static void start() {
        cluster = LocalCluster.start(3, List.of("crash", "drain", "flaky", "lonely", "cancel", "twin"));
        client = cluster.client("failures", o -> { });
        WorkerOptions.Builder inProcess = WorkerOptions.builder().workerId("in-process").queues("flaky", "cancel").maxConcurrent(4)
                .handler("watch", (ctx, input) -> {
                    try {
                        new CountDownLatch(1).await(); // runs until Baton's stop interrupts it
                    } catch (InterruptedException e) {
                        if (ctx.isCancelled()) {
                            observedCancel.countDown();
                        }
                    }
                    return new byte[0];
                });
        DemoHandlers.all().forEach(inProcess::handler);
        cluster.worker(inProcess);
    }

    @AfterAll
    static void stop() {
        try {
            InvariantChecker.Report report = InvariantChecker.check(cluster.bootstrapServers());
            assertThat(report.violations()).as(report.toString()).isEmpty();
        } finally {
            cluster.close();
        }
    }

    private static ActivityRequest.Builder request(String workflow, String queue, String type, String input) {
        return ActivityRequest.builder().site("failures", workflow, "1").queue(queue).activityType(type).input(input.getBytes(UTF_8), "text/plain");
    }

    @Test
    void shouldFinishAnActivityOnAnotherWorkerWhenItsWorkerIsKilledMidActivity() throws Exception {
        ActivityRequest req = request("crash", "crash", "long", "5000").heartbeat(Duration.ofMillis(1_500)).build();
        List<BatonProcess> pair = BatonProcess.startAll(() -> BatonProcess.worker(cluster.bootstrapServers(), "crash-a", "crash", 1_000),
                () -> BatonProcess.worker(cluster.bootstrapServers(), "crash-b", "crash", 1_000));
        try (BatonProcess a = pair.get(0); BatonProcess b = pair.get(1)) {
            CompletableFuture<ActivityOutcome> outcome = client.dispatch(req);
            String holder = awaitLeaseHolder(req.site());
            BatonProcess victim = holder.equals("crash-a") ? a : b;
            String survivor = holder.equals("crash-a") ? "crash-b" : "crash-a";
            ActivityTask firstGeneration = task("crash", req.site(), 1);

            victim.kill9();
            awaitHistory(req.site(), HistoryKind.TRANSPORT_LOST, null);
            zombieCompletion(firstGeneration, holder); // the dead worker "answers" late with its revoked token
            awaitHistory(req.site(), HistoryKind.COMPLETION_REFUSED, holder);

            ActivityOutcome o = outcome.get(90, TimeUnit.SECONDS);
            assertThat(o.completed()).as(o.toString()).isTrue();
            assertThat(o.attempt()).as("worker loss consumes no attempt").isEqualTo(1);
            assertThat(o.workerId()).isEqualTo(survivor);
            assertThat(history(req.site())).extracting(HistoryEvent::getKind)
                    .contains(HistoryKind.TRANSPORT_LOST).doesNotContain(HistoryKind.FAILED);
        }
    }

    /**
     * {@code Worker.kill()} stands in for {@code kill -9} where no process can be spared (the demo, the
     * engine's tests). Here the activity ignores the interrupt and finishes right after the kill: a
     * dead worker reports nothing, so Baton must find the loss and another worker must finish it.
     */
    @Test
    void shouldReportNothingFromAnInProcessWorkerOnceItIsKilled() throws Exception {
        ActivityRequest req = request("killed-in-process", "crash", "stubborn", "x").heartbeat(Duration.ofMillis(1_500)).build();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch killed = new CountDownLatch(1);
        Worker victim = cluster.worker(WorkerOptions.builder().workerId("killed-in-process").queues("crash").maxConcurrent(1)
                .handler("stubborn", (ctx, input) -> {
                    running.countDown();
                    while (true) {
                        try {
                            killed.await();
                            return input;
                        } catch (InterruptedException e) {
                            // stubborn: finishes anyway once the kill has returned
                        }
                    }
                }));
        CompletableFuture<ActivityOutcome> outcome = client.dispatch(req);
        assertThat(running.await(60, TimeUnit.SECONDS)).as("the victim runs the activity").isTrue();

        victim.kill();
        killed.countDown();

        try (Worker rescuer = Worker.start(WorkerOptions.builder().workerId("rescuer").queues("crash").handler("stubborn", (ctx, input) -> input)
                .kafkaConfig(cluster.clientConfig()).build())) {
            ActivityOutcome o = outcome.get(90, TimeUnit.SECONDS);
            assertThat(o.completed()).as(o.toString()).isTrue();
            assertThat(o.workerId()).isEqualTo("rescuer");
            assertThat(history(req.site())).extracting(HistoryEvent::getKind).contains(HistoryKind.TRANSPORT_LOST)
                    .doesNotContain(HistoryKind.COMPLETION_REFUSED);
        }
    }

    /**
     * The heartbeat deadline lives in an in-memory index rebuilt from the site rows when a task
     * starts. The worker dies while the streams app is up, the app reads all it sent, then the app
     * moves to an empty disk before the deadline passes: nothing after the restart re-arms the
     * deadline, so only the rebuild can find the loss.
     */
    @Test
    void shouldFindALostWorkerWhoseDeadlineWasArmedBeforeTheStreamsAppMovedHost() throws Exception {
        ActivityRequest req = request("crash-before-move", "crash", "long", "4000").heartbeat(Duration.ofSeconds(20)).build();
        CompletableFuture<ActivityOutcome> outcome;
        try (BatonProcess a = BatonProcess.worker(cluster.bootstrapServers(), "move-a", "crash", 1_000)) {
            outcome = client.dispatch(req);
            awaitLeaseHolder(req.site());
            a.kill9();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.streamsAppCaughtUp(BatonTopics.WORKER_EVENTS));
        cluster.restartStreamsAppOnEmptyDisk(() -> { });
        assertThat(history(req.site())).extracting(HistoryEvent::getKind).as("the loss must be found after the move")
                .doesNotContain(HistoryKind.TRANSPORT_LOST);
        try (BatonProcess b = BatonProcess.worker(cluster.bootstrapServers(), "move-b", "crash", 1_000)) {
            ActivityOutcome o = outcome.get(90, TimeUnit.SECONDS);
            assertThat(o.completed()).as(o.toString()).isTrue();
            assertThat(o.workerId()).isEqualTo("move-b");
            assertThat(history(req.site())).extracting(HistoryEvent::getKind).contains(HistoryKind.TRANSPORT_LOST);
        }
    }

    @Test
    void shouldParkADrainingWorkersActivitiesAndFinishThemElsewhereWithoutAFailure() throws Exception {
        List<ActivityRequest> reqs = new ArrayList<>();
        List<CompletableFuture<ActivityOutcome>> outcomes = new ArrayList<>();
        List<BatonProcess> pair = BatonProcess.startAll(() -> BatonProcess.worker(cluster.bootstrapServers(), "drain-a", "drain", 300),
                () -> BatonProcess.worker(cluster.bootstrapServers(), "drain-b", "drain", 300));
        try (BatonProcess a = pair.get(0); BatonProcess b = pair.get(1)) {
            for (int i = 0; i < 4; i++) {
                ActivityRequest req = ActivityRequest.builder().site("failures", "drain", Integer.toString(i)).queue("drain").activityType("long")
                        .input("8000".getBytes(UTF_8), "text/plain").heartbeat(Duration.ofSeconds(5)).build();
                reqs.add(req);
                outcomes.add(client.dispatch(req));
            }
            // One read of history for all four: a read per site per poll took longer than the runs last on a loaded
            // host, and the drained worker had finished its run before it was stopped.
            List<String> holders = awaitLeaseHolders(reqs.stream().map(ActivityRequest::site).toList());
            String drained = holders.get(0);
            (drained.equals("drain-a") ? a : b).stop();

            for (int i = 0; i < reqs.size(); i++) {
                ActivityOutcome o = outcomes.get(i).get(90, TimeUnit.SECONDS);
                assertThat(o.completed()).as(o.toString()).isTrue();
                assertThat(o.attempt()).as("a park consumes no attempt").isEqualTo(1);
                List<HistoryKind> kinds = history(reqs.get(i).site()).stream().map(HistoryEvent::getKind).toList();
                assertThat(kinds).doesNotContain(HistoryKind.FAILED, HistoryKind.TRANSPORT_LOST);
                if (holders.get(i).equals(drained)) {
                    assertThat(o.workerId()).as("finished elsewhere; drained worker said " + (drained.equals("drain-a") ? a : b).output())
                            .isNotEqualTo(drained);
                    assertThat(kinds).contains(HistoryKind.PARKED);
                }
            }
        }
    }

    /** The worker holding each site's first lease, in the order given, from one read of history per poll. */
    private static List<String> awaitLeaseHolders(List<SiteKey> sites) {
        Map<SiteKey, String> holders = new HashMap<>();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            for (HistoryEvent e : history()) {
                SiteKey site = SiteKey.of(e.getSite());
                if (e.getKind() == HistoryKind.LEASED && sites.contains(site)) {
                    holders.putIfAbsent(site, e.getWorkerId());
                }
            }
            return holders.keySet().containsAll(sites);
        });
        return sites.stream().map(holders::get).toList();
    }

    private static String awaitLeaseHolder(SiteKey site) {
        String[] holder = new String[1];
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> history(site).stream()
                .filter(e -> e.getKind() == HistoryKind.LEASED).findFirst().map(e -> holder[0] = e.getWorkerId()).isPresent());
        return holder[0];
    }

    @Test
    void shouldSucceedAtTheThirdAttemptAfterTwoRetryableFailuresWithBackoffGapsFromThePolicy() throws Exception {
        ActivityRequest req = request("flaky", "flaky", "flaky", "x")
                .retry(new RetryOptions(Duration.ofMillis(300), 2.0, Duration.ofSeconds(5), 5, List.of())).build();

        ActivityOutcome o = client.dispatch(req).get(60, TimeUnit.SECONDS);

        assertThat(o.completed()).isTrue();
        assertThat(o.attempt()).isEqualTo(3);
        List<HistoryEvent> site = history(req.site());
        assertThat(gap(site, 1)).as("backoff before attempt 2").isGreaterThanOrEqualTo(300);
        assertThat(gap(site, 2)).as("backoff before attempt 3").isGreaterThanOrEqualTo(600);
        assertThat(site.stream().filter(e -> e.getKind() == HistoryKind.COMPLETED)).hasSize(1);
    }

    @Test
    void shouldFailUnavailableUnservedAfterScheduleToStartOnAQueueWithNoWorkers() throws Exception {
        ActivityRequest req = request("lonely", "lonely", "echo", "x").scheduleToStart(Duration.ofSeconds(1)).build();

        ActivityOutcome o = client.dispatch(req).get(60, TimeUnit.SECONDS);

        assertThat(o.completed()).isFalse();
        assertThat(o.reason()).startsWith("unavailable: unserved: no live worker serves queue 'lonely'");
    }

    /**
     * Two processes run with one worker id: the second one's lease producer fences the first's. The
     * fenced worker must stop claiming the queue (it used to go on registering it with capacity while
     * its task loop was dead, so a lone queue looked saturated and its work waited), and the task
     * its failed lease transaction held must reach a worker that can lease it.
     */
    @Test
    void shouldStopRegisteringAQueueOnceAnotherProcessTakesItsWorkerId() throws Exception {
        Worker fenced = cluster.worker(WorkerOptions.builder().workerId("twin").queues("twin").maxConcurrent(2)
                .handler("echo", (ctx, input) -> input));
        assertThat(client.dispatch(request("twin-before", "twin", "echo", "x").build()).get(60, TimeUnit.SECONDS).workerId())
                .isEqualTo("twin");
        Map<String, Object> twinConfig = new HashMap<>(cluster.clientConfig());
        twinConfig.put("transactional.id", ClientIds.workerTransactionalId("twin", "twin"));
        try (KafkaProducer<byte[], byte[]> twin = new KafkaProducer<>(twinConfig, new ByteArraySerializer(), new ByteArraySerializer())) {
            twin.initTransactions();
        }

        CompletableFuture<ActivityOutcome> held = client.dispatch(request("twin-held", "twin", "echo", "x").build());
        await().atMost(LocalCluster.PATIENCE).until(() -> fenced.servedQueues().isEmpty());
        ActivityOutcome unserved = client.dispatch(request("twin-after", "twin", "echo", "x").scheduleToStart(Duration.ofSeconds(2)).build())
                .get(60, TimeUnit.SECONDS);
        assertThat(unserved.reason()).startsWith("unavailable: unserved: no live worker serves queue 'twin'");

        cluster.worker(WorkerOptions.builder().workerId("twin-rescuer").queues("twin").maxConcurrent(2).handler("echo", (ctx, input) -> input));
        ActivityOutcome rescued = held.get(90, TimeUnit.SECONDS);
        assertThat(rescued.completed()).as(rescued.toString()).isTrue();
        assertThat(rescued.workerId()).isEqualTo("twin-rescuer");
    }

    @Test
    void shouldCancelALongActivityAndLetItsHandlerSeeIt() throws Exception {
        ActivityRequest req = request("cancel", "cancel", "watch", "x").build();
        CompletableFuture<ActivityOutcome> outcome = client.dispatch(req);
        awaitHistory(req.site(), HistoryKind.LEASED, "in-process");

        client.cancel(req.site()).get(10, TimeUnit.SECONDS);

        assertThat(outcome.get(30, TimeUnit.SECONDS).reason()).startsWith("cancelled:");
        assertThat(observedCancel.await(30, TimeUnit.SECONDS)).as("handler observed isCancelled()").isTrue();
    }

    private static long gap(List<HistoryEvent> site, int failedAttempt) {
        long failedAt = site.stream().filter(e -> e.getKind() == HistoryKind.FAILED && e.getAttempt() == failedAttempt)
                .findFirst().orElseThrow().getAtMillis();
        long nextAt = site.stream().filter(e -> e.getKind() == HistoryKind.DISPATCHED && e.getAttempt() == failedAttempt + 1)
                .findFirst().orElseThrow().getAtMillis();
        return nextAt - failedAt;
    }

    private static void awaitHistory(SiteKey site, HistoryKind kind, String workerId) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> history(site).stream()
                .anyMatch(e -> e.getKind() == kind && (workerId == null || workerId.equals(e.getWorkerId()))));
    }

    private static List<HistoryEvent> history(SiteKey site) {
        return history().stream().filter(e -> SiteKey.of(e.getSite()).equals(site)).toList();
    }

    private static List<HistoryEvent> history() {
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of())) {
            EventSerde<HistoryEvent> serde = EventSerde.of(HistoryEvent.class, registry);
            return TopicScan.readAll(cluster.bootstrapServers(), BatonTopics.HISTORY).stream().map(serde::decode).toList();
        }
    }

    private static ActivityTask task(String queue, SiteKey site, int generation) {
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of())) {
            EventSerde<ActivityTask> serde = EventSerde.of(ActivityTask.class, registry);
            for (ConsumerRecord<byte[], byte[]> r : TopicScan.readAll(cluster.bootstrapServers(), BatonTopics.tasks(queue))) {
                ActivityTask t = serde.decode(r);
                if (SiteKey.of(t.getSite()).equals(site) && t.getGeneration() == generation) {
                    return t;
                }
            }
        }
        throw new IllegalStateException("no task of generation " + generation + " for " + site);
    }

    private static void zombieCompletion(ActivityTask task, String workerId) throws Exception {
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of());
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(cluster.clientConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
            WorkerEvent e = WorkerEvent.newBuilder().setKind(WorkerEventKind.COMPLETED).setSite(task.getSite()).setAttempt(task.getAttempt())
                    .setGeneration(task.getGeneration()).setToken(task.getToken()).setWorkerId(workerId)
                    .setOutput(new Payload(ByteBuffer.wrap("zombie".getBytes(UTF_8)), "text/plain")).setAtMillis(0L).build();
            producer.send(new ProducerRecord<>(BatonTopics.WORKER_EVENTS, SiteKey.of(task.getSite()).toBytes(),
                    EventSerde.of(WorkerEvent.class, registry).encode(BatonTopics.WORKER_EVENTS, e))).get();
        }
    }
}
