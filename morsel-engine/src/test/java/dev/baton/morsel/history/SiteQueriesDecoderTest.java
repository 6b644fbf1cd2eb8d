package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import dev.baton.morsel.kafka.ProjectedReader;
import dev.baton.morsel.kafka.TopicPageSource;
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
