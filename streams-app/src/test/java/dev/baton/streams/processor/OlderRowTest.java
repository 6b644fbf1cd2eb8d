package dev.baton.streams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;

import dev.baton.events.DispatchCommand;
import dev.baton.events.store.SiteState;
import dev.baton.schemas.AvroTrust;
import dev.baton.schemas.EventExamples;
import dev.baton.streams.state.DeadlineKind;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.junit.jupiter.api.Test;

/**
 * A row written before {@code deadlineInputs} existed (restored from an older changelog after an
 * upgrade) is read with the field's default, and the default must take the arms a step writes into it.
 */
class OlderRowTest {

    private static final EventExamples.Example EXAMPLE = EventExamples.all().get(0);

    @Test
    void aRowWrittenBeforeDeadlineInputsExistedTakesNewArms() throws IOException {
        AvroTrust.trustBatonEvents();
        Schema current = SiteState.getClassSchema();
        Schema older = Schema.createRecord(current.getName(), current.getDoc(), current.getNamespace(), false,
                current.getFields().stream().filter(f -> !f.name().equals("deadlineInputs")).map(f -> new Schema.Field(f, f.schema())).toList());
        DispatchCommand cmd = (DispatchCommand) EXAMPLE.event();
        SiteState fresh = SiteLifecycle.newRow(cmd, cmd.getTimeouts(), 10L, 5L);
        GenericData.Record row = new GenericData.Record(older);
        for (Schema.Field f : older.getFields()) {
            row.put(f.name(), fresh.get(current.getField(f.name()).pos()));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericData.Record>(older, GenericData.get()).write(row, encoder);
        encoder.flush();

        SiteState read = new SpecificDatumReader<SiteState>(older, current)
                .read(null, DecoderFactory.get().binaryDecoder(out.toByteArray(), null));
        read.getDeadlineInputs().put(DeadlineKind.HEARTBEAT.name(), 7L);
        assertThat(read.getDeadlineInputs()).containsEntry(DeadlineKind.HEARTBEAT.name(), 7L);
        assertThat(read.getDeadlineInputs()).hasSize(1);
    }
}
