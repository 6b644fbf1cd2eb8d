package dev.baton.streams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.events.DispatchCommand;
import dev.baton.events.store.SiteState;
import dev.baton.schemas.EventExamples;
import org.apache.avro.JsonProperties;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class NewRowTest {

    private final DispatchCommand cmd = (DispatchCommand) EventExamples.all().get(0).event();

    @Test
    void shouldSetEveryFieldWhoseDefaultIsNotNull() throws Exception {
        SiteState.Builder row = SiteLifecycle.newRow(cmd, cmd.getTimeouts(), 10L, 5L);
        for (Schema.Field f : SiteState.getClassSchema().getFields()) {
            if (f.hasDefaultValue() && f.defaultVal() != JsonProperties.NULL_VALUE) {
                String has = "has" + Character.toUpperCase(f.name().charAt(0)) + f.name().substring(1);
                assertThat((Boolean) SiteState.Builder.class.getMethod(has).invoke(row)).as(f.name()).isTrue();
            }
        }
    }

    @Test
    void shouldGiveFieldsTheRunDoesNotDecideTheirSchemaDefaults() {
        SiteState row = SiteLifecycle.newRow(cmd, cmd.getTimeouts(), 10L, 5L).build();
        for (String name : new String[] {"transportLosses", "dispatchOffset", "eventsOffset", "earlierRuns", "refusals"}) {
            Schema.Field f = SiteState.getClassSchema().getField(name);
            assertThat(row.get(f.pos())).as(name).isEqualTo(f.defaultVal());
        }
    }
}
