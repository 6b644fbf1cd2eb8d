package dev.baton.streams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import dev.baton.events.DispatchCommand;
import dev.baton.events.store.SiteState;
import dev.baton.schemas.AvroTrust;
import dev.baton.schemas.EventExamples;
import org.apache.avro.JsonProperties;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class NewRowTest {

    /** The fields a new run decides itself; every other field must hold its schema default. */
    private static final Set<String> DECIDED = Set.of("state", "attempt", "generation", "requestId", "replyKey", "runId", "idempotencyKey",
            "queue", "activityType", "node", "input", "retryPolicy", "timeouts", "createdAtMillis", "firstRequestedAtMillis",
            "deadlines", "deadlineInputs", "waiters", "callerAttempt");
    /** Every field of the row when newRow was last checked: a field added since needs a look at newRow, then a line here. */
    private static final List<String> KNOWN = List.of("state", "attempt", "generation", "requestId", "replyKey", "runId", "idempotencyKey",
            "queue", "activityType", "node", "input", "retryPolicy", "timeouts", "workerId", "transportLosses", "createdAtMillis",
            "firstRequestedAtMillis", "deadlines", "deadlineInputs", "outcomeStatus", "outcomeOutput", "outcomeReason", "resolvedToken", "waiters", "token",
            "tokenSecret", "callerAttempt", "superseded", "dispatchOffset", "eventsOffset", "previousRun", "outcomeFailure",
            "heartbeatDetails", "earlierRuns", "refusals");

    private final DispatchCommand cmd = (DispatchCommand) EventExamples.all().get(0).event();

    @Test
    void shouldKnowEveryFieldOfTheRow() {
        assertThat(SiteState.getClassSchema().getFields().stream().map(Schema.Field::name).toList()).isEqualTo(KNOWN);
    }

    @Test
    void shouldGiveEveryFieldTheRunDoesNotDecideItsSchemaDefault() {
        SiteState row = SiteLifecycle.newRow(cmd, cmd.getTimeouts(), 10L, 5L);
        for (Schema.Field f : SiteState.getClassSchema().getFields()) {
            if (DECIDED.contains(f.name())) {
                continue;
            }
            Object expected = f.defaultVal() == JsonProperties.NULL_VALUE ? null : f.defaultVal();
            assertThat(row.get(f.pos())).as(f.name()).isEqualTo(expected);
        }
    }

    @Test
    void shouldEqualTheRowAvrosBuilderMakesFromTheSameDecisions() throws Exception {
        SiteState row = SiteLifecycle.newRow(cmd, cmd.getTimeouts(), 10L, 5L);
        AvroTrust.trustBatonEvents(); // the builder deep-copies the defaults it fills in, which loads the row's nested classes
        SiteState.Builder built = SiteState.newBuilder();
        for (String name : DECIDED) {
            String setter = "set" + Character.toUpperCase(name.charAt(0)) + name.substring(1);
            Method set = Arrays.stream(SiteState.Builder.class.getMethods()).filter(m -> m.getName().equals(setter)).findFirst().orElseThrow();
            set.invoke(built, row.get(SiteState.getClassSchema().getField(name).pos()));
        }
        assertThat(built.build()).isEqualTo(row);
    }
}
