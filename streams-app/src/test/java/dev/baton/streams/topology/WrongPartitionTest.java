package dev.baton.streams.topology;

import static dev.baton.streams.topology.SiteHarness.request;
import static dev.baton.streams.topology.SiteHarness.site;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.SiteKey;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The partition check on records other than a requested dispatch (which is answered: see
 * {@code HostileInputTest}): the driver reads everything from partition 0 of two, so a site whose
 * key maps to partition 1 arrives where a client with a non-murmur2 partitioner would put it.
 */
class WrongPartitionTest {

    private final SiteHarness h = SiteHarness.withInputPartitions(2);

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void shouldDeadLetterAWorkerEventOnTheWrongPartitionNamingThePartitioner() {
        SiteKey elsewhere = siteOnPartition(1);
        WorkerEvent event = WorkerEvent.newBuilder().setKind(WorkerEventKind.COMPLETED).setSite(elsewhere.toRef()).setAttempt(1)
                .setGeneration(1).setToken("AAAAAAAAAAAAAAAAAAAAAA").setWorkerId("w-1").setAtMillis(0L).build();

        h.pipeWorkerEvent(elsewhere.toBytes(), h.serdes.workerEvent().encode(BatonTopics.WORKER_EVENTS, event));

        assertThat(h.deadLetters()).singleElement().satisfies(d -> {
            assertThat(d.getReason()).startsWith("wrong partition: written to partition 0 of baton.worker-events, "
                    + "but its key maps to partition 1").contains("murmur2_random");
            assertThat(d.getSourceTopic()).isEqualTo(BatonTopics.WORKER_EVENTS);
        });
        assertThat(h.results()).as("no outbox entry: the site is not this task's").isEmpty();
        assertThat(h.siteState(elsewhere)).isEmpty();
    }

    @Test
    void shouldDeadLetterACancelOnTheWrongPartitionWithoutAnswering() {
        SiteKey elsewhere = siteOnPartition(1);
        h.send(DispatchCommand.newBuilder().setKind(DispatchKind.CANCEL).setSite(elsewhere.toRef()).setRequestId("cancel-1")
                .setReplyKey(SiteHarness.CLIENT).setAttempt(1).setRequestedAtMillis(0L).build());

        assertThat(h.deadLetters()).singleElement().satisfies(d -> assertThat(d.getReason()).startsWith("wrong partition:"));
        assertThat(h.results()).as("a cancel is answered to nobody, here as anywhere").isEmpty();
    }

    @Test
    void shouldRunASiteWhoseKeyMapsToThePartitionItIsOn() {
        SiteKey here = siteOnPartition(0);

        h.send(request(here, 1, "r1").build());

        assertThat(h.tasks()).singleElement().satisfies(t -> assertThat(SiteKey.of(t.getSite())).isEqualTo(here));
        assertThat(h.deadLetters()).isEmpty();
    }

    private static SiteKey siteOnPartition(int partition) {
        for (int i = 0; ; i++) {
            SiteKey s = site("wp" + i);
            if (Utils.toPositive(Utils.murmur2(s.toBytes())) % 2 == partition) {
                return s;
            }
        }
    }
}
