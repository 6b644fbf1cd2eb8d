package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.SiteRef;
import dev.baton.morsel.kafka.ProjectedReader;
import dev.baton.morsel.kafka.TopicPageSource;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * Adversarial review (h/adv39): the sites query's namespace scope when the record's namespace (in the value, not the
 * key) is not well-formed UTF-8. The reference (HistoryScanReferenceIT.plainSites) keeps a dispatch when
 * {@code namespace.equals(e.getSite().getNamespace())}, EventSerde's String (ill-formed bytes become U+FFFD). The
 * engine's filter compares dictionary ids: the scope's {@code ids.id(String)} (its UTF-8, EF BF BD for U+FFFD) against
 * the record's {@code recent.id(5, e.utf8(H_NAMESPACE))} (the raw bytes, FF), so the record was filtered out. Fixed: the
 * decoders intern a value string in its decoded form ({@code Utf8Keys.decoded}).
 */
class Adv39SitesTest {

    private static byte[] patched(byte[] value, String marker, byte[] with) {
        byte[] m = marker.getBytes(StandardCharsets.UTF_8);
        outer:
        for (int i = 0; i + m.length <= value.length; i++) {
            for (int j = 0; j < m.length; j++) {
                if (value[i + j] != m[j]) {
                    continue outer;
                }
            }
            System.arraycopy(with, 0, value, i, with.length);
            return value;
        }
        throw new AssertionError("marker not found");
    }

    @Test
    void aScopeMatchesAnIllFormedNamespaceAsTheReferenceDoes() {
        SchemaRegistry registry = SchemaRegistry.forUrl("mem://adv39-ns", Map.of());
        EventSerde<HistoryEvent> serde = EventSerde.of(HistoryEvent.class, registry);
        byte[] value = patched(serde.encode(BatonTopics.HISTORY, HistoryEvent.newBuilder().setKind(HistoryKind.DISPATCHED)
                .setSite(new SiteRef("nsZZ", "wf", "1")).setAttempt(1).setRequestId("r").setQueue("q").setActivityType("t").setAtMillis(5L).build()),
                "nsZZ", new byte[] {'n', 's', (byte) 0xff, 'A'});
        String scope = "ns\uFFFDA";
        // the reference keeps it: the decoded namespace equals the scope
        assertThat(serde.decode(BatonTopics.HISTORY, value).getSite().getNamespace().toString()).isEqualTo(scope);

        SiteQueries queries = new SiteQueries(new ProjectedReader(registry, () -> LogProjections.HISTORY),
                new ProjectedReader(registry, () -> LogProjections.OUTCOME));
        long scopeId = queries.dictionary().id(scope); // what sitesQuery filters on: ids.id(scope.namespace())
        TopicPageSource.RowDecoder decoder = queries.historyDecoder(new PageStrings(), new PageStrings(), true);
        decoder.pageStarts();
        long[] row = new long[10];
        ConsumerRecord<ByteBuffer, ByteBuffer> rec = new ConsumerRecord<>(BatonTopics.HISTORY, 0, 0,
                ByteBuffer.wrap("ns/wf/1".getBytes(StandardCharsets.UTF_8)), ByteBuffer.wrap(value));
        assertThat(decoder.decode(rec, row)).as("decoded, not refused").isTrue();
        assertThat(row[5]).as("the namespace column (RangeFilter.between(namespace, scopeId, scopeId) keeps the row only if equal)")
                .isEqualTo(scopeId);
    }
}
