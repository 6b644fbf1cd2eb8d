package dev.baton.dispatcher.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ResultListenerStoppedException;
import dev.baton.dispatcher.UnmatchedResultHandler;
import dev.baton.events.Outcome;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.ForwardingSchemaRegistry;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.schemas.registry.SchemaRegistryUnavailableException;
import dev.baton.topics.BatonTopics;
import org.apache.avro.Schema;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The listener thread on a {@link ResultsMockConsumer}: which records it keeps, where each one goes, what it commits. */
class ResultListenerTest {

    private static final String CLIENT = "billing-1";
    private static final int PARTITIONS = 12;
    private static final TopicPartition OWN = new TopicPartition(BatonTopics.RESULTS, ResultListener.partitionFor(CLIENT, PARTITIONS));
    private static final Duration WAIT = Duration.ofSeconds(5);

    private final SchemaRegistry registry = SchemaRegistry.forUrl("mem://" + UUID.randomUUID(), Map.of());
    private final EventSerde<Outcome> serde = EventSerde.of(Outcome.class, registry);
    private final PendingResults pending = new PendingResults(100);
    private final List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();
    private ResultsMockConsumer consumer = new ResultsMockConsumer(PARTITIONS);
    private Map<String, Object> consumerConfig;
    private ResultListener listener;
    private Thread thread;

    private ResultListener listener(Map<String, Object> kafkaConfig, UnmatchedResultHandler handler) {
        return new ResultListener(CLIENT, kafkaConfig, config -> {
            consumerConfig = config;
            return consumer;
        }, serde, pending, handler);
    }

    private void start(UnmatchedResultHandler handler) throws InterruptedException {
        listener = listener(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092"), handler);
        thread = new Thread(listener, "test-results-" + CLIENT);
        thread.start();
        listener.awaitPositioned(WAIT);
    }

    private void start() throws InterruptedException {
        start(unmatched::add);
    }

    private void deliver(String key, Outcome event) {
        consumer.addResult(OWN.partition(), key, serde.encode(BatonTopics.RESULTS, event));
    }

    /** Delivers an unmatched outcome and waits for the handler: everything delivered before it has been handled. */
    private void awaitHandledSoFar() {
        String marker = "marker-" + UUID.randomUUID();
        deliver(CLIENT, OutcomeEvents.completed(marker, CLIENT).build());
        await().atMost(WAIT).until(() -> unmatched.stream().anyMatch(o -> o.requestId().equals(marker)));
        unmatched.removeIf(o -> o.requestId().equals(marker));
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (listener != null) {
            listener.close();
        }
        if (thread != null) {
            thread.join(WAIT.toMillis());
        }
        registry.close();
    }

    @Test
    void shouldReadOnlyTheResultsPartitionItsClientIdMapsTo() throws InterruptedException {
        start();

        // the group's one member is assigned every partition; it reads its own and leaves the others paused
        assertThat(consumer.assignment()).hasSize(PARTITIONS);
        assertThat(consumer.paused()).doesNotContain(OWN).hasSize(PARTITIONS - 1);
        assertThat(listener.assignment()).containsExactly(OWN);
    }

    @Test
    void shouldReadUnderTheClientsOwnGroupOnlyCommittedResultsWithoutAutoCommit() throws InterruptedException {
        start();

        assertThat(consumerConfig)
                .containsEntry(ConsumerConfig.GROUP_ID_CONFIG, "baton-dispatcher-billing-1")
                .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false)
                .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                .containsEntry(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest")
                .containsEntry(ConsumerConfig.CLIENT_ID_CONFIG, "baton-results-billing-1");
    }

    @Test
    void shouldHoldItsClientIdAsTheStaticMemberOfItsGroupUnderTheConsumerProtocol() throws InterruptedException {
        start();

        assertThat(consumerConfig)
                .containsEntry(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer")
                .containsEntry(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "dispatch-client");
    }

    @Test
    void shouldDropTheClassicProtocolsMemberSettingsWhichTheConsumerProtocolRefuses() {
        Map<String, Object> kafkaConfig = new HashMap<>();
        kafkaConfig.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "broker:9093");
        kafkaConfig.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        kafkaConfig.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 3_000);
        kafkaConfig.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, "org.apache.kafka.clients.consumer.RangeAssignor");

        listener(kafkaConfig, unmatched::add); // not run: only what it asks the consumer factory for matters

        assertThat(consumerConfig).doesNotContainKeys(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG);
    }

    @Test
    void shouldCommitOnlyItsOwnPartitionNotThePausedOthers() throws InterruptedException {
        start();
        deliver(CLIENT, OutcomeEvents.completed("r-1", CLIENT).build());

        await().atMost(WAIT).untilAsserted(() -> assertThat(consumer.committed(Set.of(OWN)).get(OWN)).isNotNull()
                .extracting(OffsetAndMetadata::offset).isEqualTo(1L));

        Set<TopicPartition> others = new HashSet<>(consumer.assignment());
        others.remove(OWN);
        assertThat(consumer.committed(others).values()).allMatch(java.util.Objects::isNull);
    }

    /** The soak's broker restart: the partition count cannot be read for a while, and the client must go on. */
    @Test
    void shouldKeepReadingWhenThePartitionCountCannotBeReadWhileTheBrokerIsAway() throws InterruptedException {
        start();
        consumer.metadataAway(true);
        await().during(ResultsPartitionCount.CHECK_EVERY.multipliedBy(3)).atMost(WAIT).untilAsserted(() -> listener.requireRunning());
        consumer.metadataAway(false);

        CompletableFuture<ActivityOutcome> future = pending.register("r-after");
        deliver(CLIENT, OutcomeEvents.completed("r-after", CLIENT).build());
        assertThat(future).succeedsWithin(WAIT);
    }

    /** A broker restart moves the group's coordinator: the periodic commit that failed is made again, no result needed. */
    @Test
    void shouldCommitItsPositionAgainAfterAPeriodicCommitFailsEvenWithNoFurtherResults() throws InterruptedException {
        start();
        consumer.failAsyncCommits(2);
        deliver(CLIENT, OutcomeEvents.completed("r-1", CLIENT).build());

        await().atMost(WAIT).untilAsserted(() -> assertThat(consumer.committed(Set.of(OWN)).get(OWN)).isNotNull()
                .extracting(OffsetAndMetadata::offset).isEqualTo(1L));
    }

    @Test
    void shouldPassKafkaSettingsThroughKeepingAGivenClientIdAndDroppingOthers() {
        Map<String, Object> kafkaConfig = new HashMap<>();
        kafkaConfig.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "broker:9093");
        kafkaConfig.put("security.protocol", "SSL");
        kafkaConfig.put(ConsumerConfig.CLIENT_ID_CONFIG, "mine");
        kafkaConfig.put("baton.something", "not Kafka's");

        listener(kafkaConfig, unmatched::add); // not run: only what it asks the consumer factory for matters

        assertThat(consumerConfig)
                .containsEntry(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "broker:9093")
                .containsEntry("security.protocol", "SSL")
                .containsEntry(ConsumerConfig.CLIENT_ID_CONFIG, "mine")
                .doesNotContainKey("baton.something");
    }

    @Test
    void shouldReadAResultAgainWhenTheRegistryIsBrieflyUnreachableInsteadOfStopping() throws InterruptedException {
        AtomicBoolean down = new AtomicBoolean(true);
        AtomicInteger lookups = new AtomicInteger();
        SchemaRegistry flaky = new FlakyRegistry(registry, down, lookups);
        listener = new ResultListener(CLIENT, Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092"), config -> consumer,
                EventSerde.of(Outcome.class, flaky), pending, unmatched::add);
        thread = new Thread(listener, "test-results-" + CLIENT);
        thread.start();
        listener.awaitPositioned(WAIT);
        CompletableFuture<ActivityOutcome> future = pending.register("r-1");

        deliver(CLIENT, OutcomeEvents.completed("r-1", CLIENT).build());
        await().atMost(WAIT).until(() -> lookups.get() >= 2); // tried, backed off, tried again

        assertThat(future).isNotDone();
        listener.requireRunning();
        down.set(false);
        assertThat(future).succeedsWithin(WAIT).satisfies(o -> assertThat(o.requestId()).isEqualTo("r-1"));
    }

    /** A registry whose schema lookups fail, as an unreachable one's do, while {@code down} is set. */
    private static final class FlakyRegistry extends ForwardingSchemaRegistry {
        private final AtomicBoolean down;
        private final AtomicInteger lookups;

        FlakyRegistry(SchemaRegistry delegate, AtomicBoolean down, AtomicInteger lookups) {
            super(delegate);
            this.down = down;
            this.lookups = lookups;
        }

        @Override
        public Schema schemaById(int id) {
            lookups.incrementAndGet();
            if (down.get()) {
                throw new SchemaRegistryUnavailableException("registry unreachable (test)", null);
            }
            return super.schemaById(id);
        }

        @Override
        public void close() {
            // the test's registry outlives the listener
        }
    }

    @Test
    void shouldCompleteThePendingFutureOfAnOutcomeAddressedToIt() throws InterruptedException {
        start();
        CompletableFuture<ActivityOutcome> future = pending.register("r-1");

        deliver(CLIENT, OutcomeEvents.completed("r-1", CLIENT).build());

        assertThat(future).succeedsWithin(WAIT).satisfies(o -> {
            assertThat(o.requestId()).isEqualTo("r-1");
            assertThat(o.outputAsString()).isEqualTo("ok");
        });
        assertThat(unmatched).isEmpty();
    }

    @Test
    void shouldIgnoreAResultKeyedForAnotherClientSharingThePartition() throws InterruptedException {
        start();
        CompletableFuture<ActivityOutcome> future = pending.register("r-1");
        String neighbour = OutcomeEvents.neighbourOf(CLIENT, PARTITIONS);

        deliver(neighbour, OutcomeEvents.completed("r-1", neighbour).build());
        awaitHandledSoFar();

        assertThat(future).isNotDone();
        assertThat(unmatched).isEmpty();
    }

    @Test
    void shouldIgnoreAResultWithoutAKey() throws InterruptedException {
        start();
        CompletableFuture<ActivityOutcome> future = pending.register("r-1");

        deliver(null, OutcomeEvents.completed("r-1", CLIENT).build());
        awaitHandledSoFar();

        assertThat(future).isNotDone();
        assertThat(unmatched).isEmpty();
    }

    @Test
    void shouldHandAnOutcomeNoFutureWaitsForToTheUnmatchedHandler() throws InterruptedException {
        start();

        deliver(CLIENT, OutcomeEvents.failed("r-earlier", CLIENT, "terminal: card declined").build());

        await().atMost(WAIT).until(() -> !unmatched.isEmpty());
        assertThat(unmatched).singleElement().satisfies(o -> {
            assertThat(o.requestId()).isEqualTo("r-earlier");
            assertThat(o.reason()).isEqualTo("terminal: card declined");
        });
    }

    @Test
    void shouldHandAnOutcomeFlaggedUnmatchedToTheHandlerWithoutCompletingTheWaitingFuture() throws InterruptedException {
        start();
        CompletableFuture<ActivityOutcome> future = pending.register("r-1");

        deliver(CLIENT, OutcomeEvents.completed("r-1", CLIENT).setUnmatched(true).build());

        await().atMost(WAIT).until(() -> !unmatched.isEmpty());
        assertThat(unmatched).singleElement().satisfies(o -> assertThat(o.unmatched()).isTrue());
        assertThat(future).isNotDone();
        assertThat(pending.size()).isEqualTo(1);
    }

    @Test
    void shouldSkipAnUndecodableResultAndKeepReading() throws InterruptedException {
        start();
        CompletableFuture<ActivityOutcome> future = pending.register("r-1");

        consumer.addResult(OWN.partition(), CLIENT, new byte[] {9, 9, 9});
        deliver(CLIENT, OutcomeEvents.completed("r-1", CLIENT).build());

        assertThat(future).succeedsWithin(WAIT);
        assertThat(unmatched).isEmpty();
    }

    @Test
    void shouldSkipAResultWithoutAValueAndKeepReading() throws InterruptedException {
        start();
        CompletableFuture<ActivityOutcome> future = pending.register("r-1");

        consumer.addResult(OWN.partition(), CLIENT, null);
        deliver(CLIENT, OutcomeEvents.completed("r-1", CLIENT).build());

        assertThat(future).succeedsWithin(WAIT);
        assertThat(unmatched).isEmpty();
    }

    @Test
    void shouldSkipAResultWhoseSiteHasAnEmptyIdAndKeepReading() throws InterruptedException {
        start();
        CompletableFuture<ActivityOutcome> future = pending.register("r-1");

        deliver(CLIENT, OutcomeEvents.completed("r-1", CLIENT).setSite(new dev.baton.events.SiteRef("", "wf", "1")).build());
        deliver(CLIENT, OutcomeEvents.completed("r-1", CLIENT).build());

        assertThat(future).succeedsWithin(WAIT).satisfies(o -> assertThat(o.site().namespace()).isEqualTo("payments"));
        assertThat(unmatched).isEmpty();
    }

    @Test
    void shouldKeepReadingWhenTheUnmatchedHandlerThrows() throws InterruptedException {
        start(o -> {
            unmatched.add(o);
            throw new IllegalStateException("outbox full");
        });
        CompletableFuture<ActivityOutcome> future = pending.register("r-2");

        deliver(CLIENT, OutcomeEvents.completed("r-1", CLIENT).build());
        deliver(CLIENT, OutcomeEvents.completed("r-2", CLIENT).build());

        assertThat(future).succeedsWithin(WAIT);
        assertThat(unmatched).extracting(ActivityOutcome::requestId).containsExactly("r-1");
    }

    @Test
    void shouldCommitThePositionAfterTheResultsItHandled() throws InterruptedException {
        start();

        deliver(CLIENT, OutcomeEvents.completed("r-1", CLIENT).build());
        deliver(CLIENT, OutcomeEvents.completed("r-2", CLIENT).build());

        // Committed at most every ResultListener.COMMIT_EVERY, so not necessarily after each poll.
        await().atMost(WAIT).untilAsserted(() -> assertThat(consumer.committed(Set.of(OWN)).get(OWN)).isNotNull()
                .extracting(OffsetAndMetadata::offset).isEqualTo(2L));
    }

    @Test
    void shouldStopAndCloseItsConsumerOnClose() throws InterruptedException {
        start();

        listener.close();
        thread.join(WAIT.toMillis());

        assertThat(thread.isAlive()).isFalse();
        assertThat(consumer.closed()).isTrue();
    }

    @Test
    void shouldRefuseToStartWhenTheResultsTopicDoesNotExistAndCloseItsConsumer() {
        consumer = new ResultsMockConsumer(0);

        assertThatThrownBy(() -> listener(Map.of(), unmatched::add))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("baton.results does not exist; create Baton's topics with `baton topics create`");
        assertThat(consumer.closed()).isTrue();
    }

    @Test
    void shouldSayWhichClientAndPartitionWhenNotPositionedInTime() {
        ResultListener neverRun = listener(Map.of(), unmatched::add);

        assertThatThrownBy(() -> neverRun.awaitPositioned(Duration.ofMillis(10)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("result listener for billing-1 not positioned on " + OWN + " within PT0.01S");
    }

    @Test
    void shouldSayWhyWhenItStoppedBeforeItWasPositioned() {
        consumer.setPositionException(new TopicAuthorizationException(Set.of(BatonTopics.RESULTS)));
        listener = listener(Map.of(), unmatched::add);
        thread = new Thread(listener, "test-results-" + CLIENT);
        thread.start();

        assertThatThrownBy(() -> listener.awaitPositioned(WAIT))
                .isInstanceOf(ResultListenerStoppedException.class)
                .hasMessageStartingWith("the results listener of client billing-1 stopped: TopicAuthorizationException:")
                .hasCauseInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void shouldFailEveryWaitingFutureWhenPollThrows() throws InterruptedException {
        start();
        CompletableFuture<ActivityOutcome> future = pending.register("r-1");

        consumer.setPollException(new TopicAuthorizationException(Set.of(BatonTopics.RESULTS)));

        assertThat(future).failsWithin(WAIT).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(ResultListenerStoppedException.class);
    }
}
