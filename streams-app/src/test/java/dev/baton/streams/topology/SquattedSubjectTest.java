package dev.baton.streams.topology;

import static dev.baton.streams.topology.SiteHarness.request;
import static dev.baton.streams.topology.SiteHarness.site;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.events.OutcomeStatus;
import dev.baton.schemas.SiteKey;
import dev.baton.topics.BatonTopics;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A foreign schema registered under a subject of Baton's before Baton registered there (a registry
 * shared with other tools, whose REST API did not refuse it then): the dispatch needing that subject
 * cannot succeed however often it is sent, so its caller is answered {@code terminal:} with the reason.
 */
class SquattedSubjectTest {

    private static final Schema SQUAT = new Schema.Parser().parse(
            "{\"type\":\"record\",\"name\":\"Squat\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}");

    private final SiteHarness h = new SiteHarness(3, registry -> {
        registry.register(BatonTopics.tasks(SiteHarness.QUEUE) + "-value", SQUAT);
        return registry;
    });
    private final SiteKey site = site("1");

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void shouldAnswerTheCallerTerminalNamingTheRefusalWhenTheTaskSchemaCannotBeRegistered() {
        h.send(request(site, 1, "r1").build());

        assertThat(h.tasks()).isEmpty();
        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.FAILED);
            assertThat(o.getRequestId()).isEqualTo("r1");
            assertThat(o.getReason()).startsWith("terminal: SchemaRefused: the schema registry refused")
                    .contains(BatonTopics.tasks(SiteHarness.QUEUE) + "-value");
        });
        assertThat(h.siteState(site)).as("nothing of the step was written").isEmpty();
    }
}
