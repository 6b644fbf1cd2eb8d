package dev.baton.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

class BatonTopicsTest {

    private static final TopicLayout LAYOUT = new TopicLayout(5, (short) 1, -1);
    private static final List<String> FIXED = List.of(BatonTopics.DISPATCH, BatonTopics.WORKER_EVENTS, BatonTopics.WORKER_CONTROL,
            BatonTopics.WORKERS, BatonTopics.RESULTS, BatonTopics.HISTORY, BatonTopics.DLQ, BatonTopics.SCHEMAS);

    private static List<String> names(List<TopicSpec> specs) {
        return specs.stream().map(TopicSpec::name).toList();
    }

    @Test
    void shouldDeclareTheFixedTopicsAndOneTaskTopicPerQueueWhenNoNodeIsGiven() {
        List<TopicSpec> specs = BatonTopics.all(LAYOUT, List.of("payments", "mail"));

        assertThat(names(specs)).containsExactlyElementsOf(concat(FIXED, List.of("baton.tasks.payments", "baton.tasks.mail")));
    }

    @Test
    void shouldDeclareEachNodeTopicRightAfterItsQueueWithTheQueuesLayout() {
        List<TopicSpec> specs = BatonTopics.all(LAYOUT, List.of("payments", "mail"), Map.of("payments", List.of("n1", "n2")));

        assertThat(names(specs).subList(FIXED.size(), specs.size()))
                .containsExactly("baton.tasks.payments", "baton.tasks.payments.n1", "baton.tasks.payments.n2", "baton.tasks.mail");
        assertThat(specs).filteredOn(s -> s.name().startsWith(BatonTopics.TASKS_PREFIX)).allSatisfy(s -> {
            assertThat(s.partitions()).isEqualTo(5);
            assertThat(s.configs()).isEmpty();
        });
    }

    @Test
    void shouldDeclareTheQueueOfANodeEvenWhenTheQueueIsNotListed() {
        List<TopicSpec> specs = BatonTopics.all(LAYOUT, List.of(), Map.of("gpu", List.of("rack-7")));

        assertThat(names(specs)).endsWith("baton.tasks.gpu", "baton.tasks.gpu.rack-7");
    }

    @Test
    void shouldDeclareARepeatedQueueOrNodeOnce() {
        List<TopicSpec> specs = BatonTopics.all(LAYOUT, List.of("a", "a"), Map.of("a", List.of("n1", "n1")));

        assertThat(names(specs)).doesNotHaveDuplicates().endsWith("baton.tasks.a", "baton.tasks.a.n1");
    }

    @Test
    void shouldRefuseANodeNameThatCannotBePartOfATopicNameNamingTheNode() {
        assertThatThrownBy(() -> BatonTopics.all(LAYOUT, List.of("a"), Map.of("a", List.of("n.1"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("node name must match [A-Za-z0-9_-]{1,100}, was 'n.1'");
    }

    @Test
    void shouldPickTheResultsPartitionTheProducersDefaultPartitionerPicksForTheClientId() {
        for (String clientId : List.of("soak", "demo", "billing-1", "ü-client")) {
            IntStream.of(1, 3, 6, 12).forEach(partitions -> assertThat(BatonTopics.resultsPartition(clientId, partitions))
                    .as("%s over %d partitions", clientId, partitions)
                    .isEqualTo(BuiltInPartitioner.partitionForKey(clientId.getBytes(StandardCharsets.UTF_8), partitions)));
        }
    }

    @Test
    void shouldLeaveTheReplicationFactorToTheBrokerByDefault() {
        List<TopicSpec> specs = BatonTopics.all(TopicLayout.defaults(), List.of("payments"));

        assertThat(specs).allSatisfy(s -> assertThat(s.toNewTopic().replicationFactor()).as(s.name()).isEqualTo((short) -1));
        assertThat(BatonTopics.schemasTopic().toNewTopic().replicationFactor()).isEqualTo((short) -1);
        assertThat(new TopicSpec("t", 1, (short) 3, Map.of()).toNewTopic().replicationFactor()).isEqualTo((short) 3);
        assertThatThrownBy(() -> new TopicLayout(1, (short) 0, -1)).hasMessageContaining("was 0");
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return Stream.concat(a.stream(), b.stream()).toList();
    }
}
