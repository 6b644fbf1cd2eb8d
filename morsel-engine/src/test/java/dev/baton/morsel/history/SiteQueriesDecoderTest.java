package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
 * A query's decoders belong to the query, not to the threads that ran them: the scan's worker 0 is the caller's own
 * thread, and what a decoder keeps (its row, its recent strings) points at the query's dictionary, which must not
 * outlive the query on that thread.
 */
class SiteQueriesDecoderTest {

    @Test
    void shouldLeaveNothingOfTheQueryOnTheThreadThatDecoded() {
        WeakReference<StringIds> dictionary = decodeOnThisThread();

        await().atMost(Duration.ofSeconds(20)).until(() -> {
            System.gc();
            return dictionary.get() == null;
        });
        assertThat(dictionary.get()).isNull();
    }

    /**
     * The order the sites' and answers' ARG_MAX slots pick by: two records of one key at one offset in two partitions
     * (a topic whose partitions were added) must not tie, or each slot would break the tie by its own value and a site's
     * latest dispatch could mix two dispatches' fields (docs/decisions.md, "The adversary of the bucketed scan"). Within a
     * partition it still follows the offset.
     */
    @Test
    void shouldGiveEveryRecordItsOwnOrderAndKeepTheOffsetsOrderWithinAPartition() {
        SchemaRegistry registry = SchemaRegistry.forUrl("mem://site-queries-decoder-order", Map.of());
        SiteQueries queries = new SiteQueries(new ProjectedReader(registry, () -> LogProjections.HISTORY),
                new ProjectedReader(registry, () -> LogProjections.OUTCOME));
        TopicPageSource.RowDecoder decoder = queries.historyDecoder(new PageStrings(), new PageStrings(), false);
        decoder.pageStarts();
        HistoryEvent dispatch = HistoryEvent.newBuilder().setKind(HistoryKind.DISPATCHED).setSite(new SiteRef("ns", "wf", "1"))
                .setAttempt(1).setRequestId("req-1").setQueue("q").setActivityType("t").setAtMillis(1_000).build();
        ByteBuffer value = ByteBuffer.wrap(EventSerde.of(HistoryEvent.class, registry).encode(BatonTopics.HISTORY, dispatch));
        ByteBuffer key = ByteBuffer.wrap("ns/wf/1".getBytes(StandardCharsets.UTF_8));
        long[] orders = new long[3];
        int[][] at = {{0, 5}, {1, 5}, {0, 6}};
        for (int r = 0; r < at.length; r++) {
            long[] row = new long[10];
            assertThat(decoder.decode(new ConsumerRecord<>(BatonTopics.HISTORY, at[r][0], at[r][1], key.duplicate(), value.duplicate()), row))
                    .isTrue();
            orders[r] = row[0];
        }
        assertThat(orders[0]).as("offset 5 in partitions 0 and 1").isNotEqualTo(orders[1]);
        assertThat(orders[2]).as("offset 6 after offset 5, whatever the partition").isGreaterThan(orders[0]).isGreaterThan(orders[1]);
    }

    /** Decodes a record on this thread as worker 0 does, then drops the queries; returns a weak reference to their dictionary. */
    private static WeakReference<StringIds> decodeOnThisThread() {
        SchemaRegistry registry = SchemaRegistry.forUrl("mem://site-queries-decoder-test", Map.of());
        SiteQueries queries = new SiteQueries(new ProjectedReader(registry, () -> LogProjections.HISTORY),
                new ProjectedReader(registry, () -> LogProjections.OUTCOME));
        TopicPageSource.RowDecoder decoder = queries.historyDecoder(new PageStrings(), new PageStrings(), false);
        decoder.pageStarts();
        ByteBuffer key = ByteBuffer.wrap("ns/wf/1".getBytes(StandardCharsets.UTF_8));
        assertThat(decoder.decode(new ConsumerRecord<>(BatonTopics.HISTORY, 0, 0L, key, null), new long[10])).isFalse(); // a tombstone
        return new WeakReference<>(queries.dictionary());
    }
}
