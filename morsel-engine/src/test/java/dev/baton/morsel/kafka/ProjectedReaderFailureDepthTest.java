package dev.baton.morsel.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Map;

import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.SiteRef;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.schemas.UndecodableRecordException.Reason;
import dev.baton.schemas.registry.SchemaRegistry;
import org.junit.jupiter.api.Test;

/**
 * A history record whose failure's causes nest deep (five bytes a level) is refused by a scan's projected reader as
 * {@link EventSerde} refuses it: past {@link EventSerde#MAX_FAILURE_DEPTH} levels, as corrupt, never a StackOverflowError
 * out of the scan thread (h/adv34: 150,000 levels ended a history scan that projected only the kind).
 */
class ProjectedReaderFailureDepthTest {

    private static final String TOPIC = "baton.history";

    private final SchemaRegistry registry = SchemaRegistry.forUrl("mem://projected-failure-depth", Map.of());
    private final EventSerde<HistoryEvent> serde = EventSerde.of(HistoryEvent.class, registry);
    private final ProjectedReader projected = new ProjectedReader(registry, Projection.of(HistoryEvent.getClassSchema(), "kind"));
    private final byte[] prefix;

    ProjectedReaderFailureDepthTest() {
        HistoryEvent event = HistoryEvent.newBuilder().setKind(HistoryKind.values()[0]).setSite(new SiteRef("ns", "wf", "a"))
                .setAttempt(1).setAtMillis(1L).setFailure(null).build();
        byte[] bytes = serde.encode(TOPIC, event);
        prefix = Arrays.copyOf(bytes, bytes.length - 1); // the failure is the last field: its "none" is the last byte
    }

    @Test
    void shouldReadAFailureAtTheBoundAsEventSerdeDoes() {
        byte[] atBound = withNestedFailure(EventSerde.MAX_FAILURE_DEPTH);

        assertThat(serde.decode(TOPIC, atBound).getFailure()).isNotNull();
        projected.decode(TOPIC, atBound, projected.newRow());
    }

    @Test
    void shouldRefuseAFailureOneLevelPastTheBoundAsEventSerdeDoes() {
        byte[] past = withNestedFailure(EventSerde.MAX_FAILURE_DEPTH + 1);

        assertThatThrownBy(() -> serde.decode(TOPIC, past)).isInstanceOfSatisfying(UndecodableRecordException.class,
                e -> assertThat(e.reason()).isEqualTo(Reason.CORRUPT_BODY));
        assertThatThrownBy(() -> projected.decode(TOPIC, past, projected.newRow())).isInstanceOfSatisfying(UndecodableRecordException.class,
                e -> assertThat(e.reason()).isEqualTo(Reason.CORRUPT_BODY));
    }

    @Test
    void shouldRefuseAFailureNestedFarPastTheStackWithoutEndingTheThread() {
        byte[] deep = withNestedFailure(150_000);

        assertThatThrownBy(() -> projected.decode(TOPIC, deep, projected.newRow())).isInstanceOfSatisfying(UndecodableRecordException.class,
                e -> assertThat(e.reason()).isEqualTo(Reason.CORRUPT_BODY));
        projected.decode(TOPIC, withNestedFailure(3), projected.newRow()); // the same reader goes on
    }

    private byte[] withNestedFailure(int levels) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(prefix);
        out.write(2); // a failure
        for (int level = 1; level <= levels; level++) {
            out.writeBytes(new byte[] {0, 0, 0, 0, (byte) (level < levels ? 2 : 0)}); // empty strings, no details, a cause or none
        }
        return out.toByteArray();
    }
}
