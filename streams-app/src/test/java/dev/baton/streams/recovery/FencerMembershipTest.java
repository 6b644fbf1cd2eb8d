package dev.baton.streams.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Constructor;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsResult;
import org.apache.kafka.clients.admin.DescribeStreamsGroupsResult;
import org.apache.kafka.clients.admin.ListTransactionsResult;
import org.apache.kafka.clients.admin.MemberAssignment;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.StreamsGroupMemberAssignment;
import org.apache.kafka.clients.admin.StreamsGroupMemberDescription;
import org.apache.kafka.clients.admin.StreamsGroupTopologyDescriptionStatus;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.internals.KafkaFutureImpl;
import org.junit.jupiter.api.Test;

/**
 * Which open transactions the fencer takes for a crashed instance's, given what the group coordinator
 * says about the app's group. The cluster is a fake Admin: these are the membership rules, the real
 * fence is {@code AbandonedTransactionFencerIT}'s. Every case here is a LIVE instance that must not be
 * fenced, or an instance that has left and must be.
 */
class FencerMembershipTest {

    private static final String APP = "baton-streams";
    private static final String LIVE = "09a7b565-fdff-449e-a841-667219c70ffe";
    private static final String GONE = "5b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d";

    @Test
    void shouldFenceOnlyTheProcessThatLeftTheGroup() {
        FakeCluster cluster = new FakeCluster().open(APP + "-" + LIVE + "-1", APP + "-" + GONE + "-1", APP + "-" + LIVE + "-7")
                .membersByClientId(APP + "-" + LIVE + "-StreamThread-1-consumer", APP + "-" + LIVE + "-StreamThread-7-consumer");

        assertThat(cluster.pass(APP)).containsExactly(APP + "-" + GONE + "-1");
    }

    @Test
    void shouldFenceEveryOpenTransactionOnceTheGroupIsEmpty() {
        FakeCluster cluster = new FakeCluster().open(APP + "-" + GONE + "-1").membersByClientId();

        assertThat(cluster.pass(APP)).containsExactly(APP + "-" + GONE + "-1");
    }

    /**
     * {@code client.id} set: Streams names its consumers {@code <client.id>-StreamThread-<n>-consumer},
     * with no process UUID. A live instance whose transaction is slow (a broker stall) must keep it.
     */
    @Test
    void shouldFenceNothingWhenTheMembersClientIdsCarryNoProcess() {
        FakeCluster cluster = new FakeCluster().open(APP + "-" + LIVE + "-1").membersByClientId("pod-a-StreamThread-1-consumer");

        assertThat(cluster.pass(APP)).isEmpty();
    }

    /** A custom client.id that holds a UUID of its own (a pod's): still no process UUID. */
    @Test
    void shouldNotTakeAForeignUuidInAClientIdForTheProcess() {
        FakeCluster cluster = new FakeCluster().open(APP + "-" + LIVE + "-1").membersByClientId("pod-" + GONE + "-StreamThread-1-consumer");

        assertThat(cluster.pass(APP)).isEmpty();
    }

    /**
     * {@code group.protocol=streams}: the group is a streams group, and Kafka 4.4's describeConsumerGroups
     * fails with GroupIdNotFoundException ("is not a classic group"). Its members are live.
     */
    @Test
    void shouldAskAStreamsGroupForItsMembersInsteadOfTakingItForEmpty() {
        FakeCluster cluster = new FakeCluster().open(APP + "-" + LIVE + "-1", APP + "-" + GONE + "-2").membersByProcess(LIVE);

        assertThat(cluster.pass(APP)).containsExactly(APP + "-" + GONE + "-2");
    }

    @Test
    void shouldFenceNothingWhenTheGroupIsNeitherAConsumerNorAStreamsGroup() {
        FakeCluster cluster = new FakeCluster().open(APP + "-" + LIVE + "-1");

        assertThat(cluster.pass(APP)).isEmpty();
    }

    /** An application id that holds a UUID itself (tests make them so): the process is the UUID after it. */
    @Test
    void shouldReadTheProcessAfterAnApplicationIdThatHoldsAUuid() {
        String app = "baton-" + "3f0e2a4c-1b2d-4e5f-8a9b-0c1d2e3f4a5b";
        FakeCluster cluster = new FakeCluster().open(app + "-" + LIVE + "-1", app + "-" + GONE + "-1")
                .membersByClientId(app + "-" + LIVE + "-StreamThread-1-consumer");

        assertThat(cluster.pass(app)).containsExactly(app + "-" + GONE + "-1");
    }

    /**
     * A fence blocks (up to max.block.ms when its coordinator is slow); meanwhile the crashed process B
     * restarts under the same UUID (Streams keeps it in the state directory), rejoins and opens its
     * transaction again. B's id, listed before, must not be fenced after it is back.
     */
    @Test
    void shouldLookAtTheGroupAgainAfterEachFence() {
        String back = "77aa88bb-0c1d-4e2f-9a3b-4c5d6e7f8091";
        FakeCluster cluster = new FakeCluster().open(APP + "-" + GONE + "-1", APP + "-" + back + "-1")
                .membersByClientId(APP + "-" + LIVE + "-StreamThread-1-consumer");
        cluster.whileFencing = () -> cluster.consumerClientIds = List.of(APP + "-" + LIVE + "-StreamThread-1-consumer",
                APP + "-" + back + "-StreamThread-1-consumer");

        assertThat(cluster.pass(APP)).containsExactly(APP + "-" + GONE + "-1");
    }

    /** The fake: open transactions, and the app's group as the coordinator describes it. */
    private static final class FakeCluster {
        private static final StreamsGroupMemberAssignment NO_TASKS = new StreamsGroupMemberAssignment(List.of(), List.of(), List.of());
        private final List<String> open = new ArrayList<>();
        private List<String> consumerClientIds;
        private List<String> streamsProcessIds;
        private final List<String> fenced = new ArrayList<>();
        private Runnable whileFencing = () -> { };

        FakeCluster open(String... ids) {
            open.addAll(List.of(ids));
            return this;
        }

        FakeCluster membersByClientId(String... clientIds) {
            consumerClientIds = List.of(clientIds);
            return this;
        }

        FakeCluster membersByProcess(String... processIds) {
            streamsProcessIds = List.of(processIds);
            return this;
        }

        List<String> pass(String app) {
            AbandonedTransactionFencer fencer = new AbandonedTransactionFencer(admin(app), app, Duration.ofSeconds(3), id -> {
                fenced.add(id);
                whileFencing.run();
            });
            List<String> returned = fencer.runOnce();
            assertThat(returned).isEqualTo(fenced);
            return fenced;
        }

        private Admin admin(String app) {
            return (Admin) Proxy.newProxyInstance(Admin.class.getClassLoader(), new Class<?>[] {Admin.class}, (proxy, method, args) ->
                    switch (method.getName()) {
                        case "listTransactions" -> listing();
                        case "describeConsumerGroups" -> new DescribeConsumerGroupsResult(Map.of(app, consumerGroup(app)));
                        case "describeStreamsGroups" -> new DescribeStreamsGroupsResult(Map.of(app, streamsGroup(app)));
                        case "close" -> null;
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
        }

        private KafkaFuture<ConsumerGroupDescription> consumerGroup(String app) {
            if (consumerClientIds == null) {
                return failed(new GroupIdNotFoundException("Group " + app + " is not a classic group."));
            }
            List<MemberDescription> members = consumerClientIds.stream().map(c -> new MemberDescription("m-" + c, Optional.empty(),
                    Optional.empty(), c, "/10.0.0.1", new MemberAssignment(Set.of()), Optional.empty(), Optional.empty(), Optional.empty())).toList();
            return KafkaFuture.completedFuture(new ConsumerGroupDescription(app, false, members, "stream", GroupType.CLASSIC,
                    members.isEmpty() ? GroupState.EMPTY : GroupState.STABLE, new Node(1, "b", 9092), Set.of(), Optional.empty(), Optional.empty()));
        }

        private KafkaFuture<StreamsGroupDescription> streamsGroup(String app) {
            if (streamsProcessIds == null) {
                return failed(new GroupIdNotFoundException("Group " + app + " is not a streams group."));
            }
            List<StreamsGroupMemberDescription> members = streamsProcessIds.stream().map(p -> new StreamsGroupMemberDescription("m-" + p, 1,
                    Optional.empty(), Optional.empty(), app + "-" + p + "-StreamThread-1-consumer", "/10.0.0.1", 1, p, Optional.empty(),
                    Map.of(), List.of(), List.of(), NO_TASKS, NO_TASKS, false)).toList();
            return KafkaFuture.completedFuture(new StreamsGroupDescription(app, 1, 1, 1, List.of(), members, GroupState.STABLE,
                    new Node(1, "b", 9092), Set.of(), Optional.empty(), StreamsGroupTopologyDescriptionStatus.NOT_REQUESTED, Optional.empty()));
        }

        private ListTransactionsResult listing() throws Exception {
            KafkaFutureImpl<Collection<TransactionListing>> broker = new KafkaFutureImpl<>();
            broker.complete(open.stream().map(id -> new TransactionListing(id, 1L, TransactionState.ONGOING)).toList());
            Constructor<ListTransactionsResult> c = ListTransactionsResult.class.getDeclaredConstructor(KafkaFuture.class);
            c.setAccessible(true); // package-private: the only way to hand the fencer a listing without a broker
            return c.newInstance(KafkaFuture.completedFuture(Map.of(1, broker)));
        }

        private static <T> KafkaFuture<T> failed(Throwable t) {
            KafkaFutureImpl<T> f = new KafkaFutureImpl<>();
            f.completeExceptionally(t);
            return f;
        }
    }
}
