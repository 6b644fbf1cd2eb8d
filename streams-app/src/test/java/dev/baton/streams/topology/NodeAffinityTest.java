package dev.baton.streams.topology;

import static dev.baton.streams.topology.SiteHarness.QUEUE;
import static dev.baton.streams.topology.SiteHarness.request;
import static dev.baton.streams.topology.SiteHarness.site;
import static dev.baton.streams.topology.SiteHarness.timeouts;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import dev.baton.events.OutcomeStatus;
import dev.baton.schemas.SiteKey;
import dev.baton.topics.BatonTopics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Tasks pinned to a node go to the node's topic; a node nobody declared or serves is an answer, never a stall. */
class NodeAffinityTest {

    private final SiteHarness h = new SiteHarness();
    private final SiteKey site = site("1");

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void shouldPublishAPinnedTaskOnTheNodesTopic() {
        h.registerWorker("w1", false, List.of("n1"), QUEUE);

        h.send(request(site, 1, "r1").setNode("n1").build());

        assertThat(h.tasks(BatonTopics.tasks(QUEUE, "n1"))).singleElement().satisfies(t -> assertThat(t.getNode()).isEqualTo("n1"));
        assertThat(h.tasks()).as("nothing on the queue's own topic").isEmpty();
    }

    @Test
    void shouldAnswerAPinToAnUndeclaredNodeAtOnce() {
        h.send(request(site, 1, "r1").setNode("nowhere").build());
        h.send(request(site("2"), 1, "r2").build());

        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getRequestId()).isEqualTo("r1");
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.FAILED);
            assertThat(o.getReason()).startsWith("unavailable: unknown node 'nowhere' on queue 'payments'")
                    .contains("baton topics create --queue payments --node nowhere");
        });
        assertThat(h.tasks()).as("the next dispatch goes on").hasSize(1);
    }

    @Test
    void shouldFailAPinNobodyServesUnservedAtScheduleToStart() {
        h.registerWorker("w1", false, List.of("n2"), QUEUE); // serves the queue, not node n1

        h.send(request(site, 1, "r1").setNode("n1").setTimeouts(timeouts(1_000L, null, null, null)).build());
        h.advance(Duration.ofMillis(1_100));

        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getReason())
                .startsWith("unavailable: unserved: no live worker with node 'n1' on queue 'payments'"));
    }

    @Test
    void shouldFailAPinWhoseWorkersAreBusySaturatedAtScheduleToStart() {
        h.registerWorker("w1", false, List.of("n1"), QUEUE);

        h.send(request(site, 1, "r1").setNode("n1").setTimeouts(timeouts(1_000L, null, null, null)).build());
        h.advance(Duration.ofMillis(1_100));

        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getReason())
                .startsWith("unavailable: saturated: 1 live worker(s) with node 'n1' on queue 'payments'"));
    }
}
