package dev.baton.streams.topology;

import static dev.baton.streams.topology.SiteHarness.request;
import static dev.baton.streams.topology.SiteHarness.site;
import static dev.baton.streams.topology.SiteHarness.timeouts;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.baton.events.ActivityTask;
import dev.baton.events.HistoryKind;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.WorkerEventKind;
import dev.baton.events.store.SiteStatus;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.ForwardingSchemaRegistry;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.schemas.registry.SchemaRegistryUnavailableException;
import dev.baton.topics.BatonTopics;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A step that throws half-way leaves nothing behind: here the outcome cannot be encoded (the
 * registry is unreachable when the first outcome registers its schema), after the rules had already
 * marked the site resolved.
 */
class AtomicStepTest {

    private final AtomicBoolean resultsRegistryDown = new AtomicBoolean();
    private final SiteHarness h = new SiteHarness(3, registry -> new FailingForResults(registry, resultsRegistryDown));
    private final SiteKey site = site("1");

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void shouldLeaveTheSiteLiveWhenItsOutcomeCannotBeEmitted() {
        h.send(request(site, 1, "r1").setTimeouts(timeouts(null, null, null, 1_000L)).build());
        ActivityTask task = h.tasks().get(0);
        h.report(task, WorkerEventKind.LEASED, "w1");

        resultsRegistryDown.set(true);
        h.complete(task, "w1", "lost to the outage");
        resultsRegistryDown.set(false);

        assertThat(h.siteState(site)).hasValueSatisfying(s -> assertThat(s.getState()).isEqualTo(SiteStatus.LEASED));
        assertThat(h.results()).isEmpty();
        assertThat(h.deadLetters()).singleElement().satisfies(d -> assertThat(d.getReason()).contains("processing failed"));

        h.advance(Duration.ofMillis(1_100)); // the worker is done and silent: transport loss, the same attempt again
        ActivityTask again = h.tasks().get(0);
        assertThat(again.getGeneration()).isEqualTo(2);
        h.complete(again, "w2", "answered");

        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getRequestId()).isEqualTo("r1");
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.COMPLETED);
        });
        assertThat(h.historyKinds()).contains(HistoryKind.TRANSPORT_LOST, HistoryKind.COMPLETED);
    }

    /** A registry that cannot be reached for the results subject while {@code down} is set. */
    private static final class FailingForResults extends ForwardingSchemaRegistry {
        private final AtomicBoolean down;

        FailingForResults(SchemaRegistry delegate, AtomicBoolean down) {
            super(delegate);
            this.down = down;
        }

        @Override
        public int register(String subject, Schema schema) {
            if (down.get() && subject.startsWith(BatonTopics.RESULTS)) {
                throw new SchemaRegistryUnavailableException("registry unreachable (test)", null);
            }
            return super.register(subject, schema);
        }
    }
}
