package dev.baton.streams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.baton.events.DispatchCommand;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.SiteRef;
import dev.baton.events.store.SiteState;
import dev.baton.schemas.AvroTrust;
import dev.baton.schemas.EventExamples;
import org.apache.avro.JsonProperties;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class AnswersTest {

    /** Every field of a history event when {@link Answers#runHistory} was last checked: a field added since needs a look at it. */
    private static final List<String> KNOWN = List.of("kind", "site", "attempt", "generation", "queue", "activityType", "workerId",
            "requestId", "idempotencyKey", "reason", "output", "atMillis", "failure");
    /** The fields {@link Answers#runHistory} gives no value of its own: the builder would fill them with their defaults. */
    private static final List<String> LEFT_TO_DEFAULTS = List.of("idempotencyKey", "output", "failure");

    private final DispatchCommand cmd = (DispatchCommand) EventExamples.all().get(0).event();
    private final SiteState row = SiteLifecycle.newRow(cmd, cmd.getTimeouts(), 10L, 5L);
    private final SiteRef site = cmd.getSite();

    @Test
    void shouldKnowEveryFieldOfAHistoryEvent() {
        assertThat(HistoryEvent.getClassSchema().getFields().stream().map(Schema.Field::name).toList()).isEqualTo(KNOWN);
    }

    @Test
    void shouldLeaveOnlyFieldsWhoseDefaultIsNull() {
        for (String name : LEFT_TO_DEFAULTS) {
            assertThat(HistoryEvent.getClassSchema().getField(name).defaultVal()).as(name).isEqualTo(JsonProperties.NULL_VALUE);
        }
    }

    @Test
    void shouldEqualWhatAvrosBuilderMakesForADispatch() {
        AvroTrust.trustBatonEvents();
        HistoryEvent built = Answers.history(site, row, HistoryKind.DISPATCHED, null, 42L).setIdempotencyKey(row.getIdempotencyKey()).build();
        HistoryEvent made = Answers.runHistory(site, row, HistoryKind.DISPATCHED, row.getGeneration(), null, null, 42L);
        made.setIdempotencyKey(row.getIdempotencyKey());
        assertThat(made).isEqualTo(built);
    }

    @Test
    void shouldEqualWhatAvrosBuilderMakesForAResolution() {
        AvroTrust.trustBatonEvents();
        HistoryEvent built = Answers.history(site, row, HistoryKind.COMPLETED, "why", 43L).setOutput(cmd.getInput()).setFailure(null)
                .setWorkerId("w-1").setGeneration(7).build();
        HistoryEvent made = Answers.runHistory(site, row, HistoryKind.COMPLETED, 7, "w-1", "why", 43L);
        made.setOutput(cmd.getInput());
        made.setFailure(null);
        assertThat(made).isEqualTo(built);
    }

    @Test
    void shouldEqualWhatAvrosBuilderMakesForALease() {
        AvroTrust.trustBatonEvents();
        HistoryEvent built = Answers.history(site, row, HistoryKind.LEASED, null, 44L).setWorkerId("w-1").build();
        HistoryEvent made = Answers.runHistory(site, row, HistoryKind.LEASED, row.getGeneration(), "w-1", null, 44L);
        assertThat(made).isEqualTo(built);
    }
}
