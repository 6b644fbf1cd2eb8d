package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.List;
import java.util.Map;

import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.RetryPolicy;
import dev.baton.events.SiteRef;
import dev.baton.morsel.kafka.ProjectedReader;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.junit.jupiter.api.Test;

/**
 * Adversarial review (h/adv39), through Baton's own schema and EventSerde: a DispatchCommand whose retry policy's
 * nonRetryableReasonPrefixes (an array the reader has, not projected: the plan reads it item by item) says 63 items
 * with ~10 bytes left, the first of negative length. EventSerde (SpecificDatumReader, fast reader: checkArrayBlock ->
 * ensureAvailableCollectionBytes) refuses before the first item with an EOFException: TRUNCATED. The projected reader
 * (LogProjections.COMMAND) reads the first item and refuses its length: CORRUPT_BODY.
 */
class Adv39CommandDecodeTest {

    @Test
    void aCommandsArrayPromisingMoreItemsThanBytesIsRefusedForEventSerdesReason() {
        SchemaRegistry registry = SchemaRegistry.forUrl("mem://adv39-command", Map.of());
        EventSerde<DispatchCommand> serde = EventSerde.of(DispatchCommand.class, registry);
        String topic = BatonTopics.DISPATCH;
        byte[] value = serde.encode(topic, DispatchCommand.newBuilder().setKind(DispatchKind.REQUESTED).setSite(new SiteRef("ns", "wf", "1"))
                .setRequestId("r").setReplyKey("c").setAttempt(1)
                .setRetryPolicy(RetryPolicy.newBuilder().setInitialIntervalMillis(1).setMaxIntervalMillis(2).setMaxAttempts(3)
                        .setNonRetryableReasonPrefixes(List.of("ZZZ")).build())
                .setRequestedAtMillis(5).build());
        byte[] marker = {2, 6, 'Z', 'Z', 'Z', 0}; // count 1, length 3, "ZZZ", end
        int at = -1;
        for (int i = 0; i + marker.length <= value.length && at < 0; i++) {
            if (java.util.Arrays.equals(value, i, i + marker.length, marker, 0, marker.length)) {
                at = i;
            }
        }
        assertThat(at).isNotNegative();
        value[at] = 126; // count 63
        value[at + 1] = 1; // length -1
        assertThat(value.length - at - 1).isLessThan(63);

        Throwable avro = catchThrowable(() -> serde.decode(topic, value));
        assertThat(avro).isInstanceOf(UndecodableRecordException.class);
        UndecodableRecordException.Reason want = ((UndecodableRecordException) avro).reason();
        ProjectedReader projected = new ProjectedReader(registry, () -> LogProjections.COMMAND);
        Throwable plan = catchThrowable(() -> projected.decode(topic, value, projected.newRow()));
        assertThat(plan).isInstanceOf(UndecodableRecordException.class);
        assertThat(((UndecodableRecordException) plan).reason()).as("EventSerde: %s; plan: %s", avro.getMessage(), plan.getMessage())
                .isEqualTo(want);
    }
}
