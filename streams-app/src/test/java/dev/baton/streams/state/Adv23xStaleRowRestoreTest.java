package dev.baton.streams.state;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.junit.jupiter.api.Test;

/**
 * Adversary round 23 (h/adv23x): the at-least-once sites restore skips a changelog record holding a row older than the
 * one restored before it for its key (a thawed zombie instance's late write), and restores everything else as before.
 * Rows here are "dispatchOffset,eventsOffset[,tag]"; the end to end witness is {@code Adv23xStaleChangelogRowIT} (cli).
 */
class Adv23xStaleRowRestoreTest {

    private final Map<Bytes, byte[]> store = new HashMap<>();
    private final List<String> restored = new ArrayList<>();
    private final RecordBatchingStateRestoreCallback callback = StaleRowRestore.filtering(this::apply, store::get,
            Adv23xStaleRowRestoreTest::stamps, "sites");

    @Test
    void aRowOlderThanTheOneRestoredIsSkippedInTheSameBatchAndInALaterOne() {
        callback.restoreBatch(List.of(row("s", "5,-1,pending"), row("s", "5,7,leased"), row("s", "5,9,resolved"), row("s", "5,-1,stale")));
        assertThat(value("s")).isEqualTo("5,9,resolved");
        callback.restoreBatch(List.of(row("s", "5,7,stale-leased")));
        assertThat(value("s")).isEqualTo("5,9,resolved");
        assertThat(restored).containsExactly("s=5,-1,pending", "s=5,7,leased", "s=5,9,resolved");
    }

    @Test
    void equalStampsTombstonesNewRunsAndUnreadableRowsAreRestoredAsWritten() {
        callback.restoreBatch(List.of(row("s", "5,9,a"), row("s", "5,9,b"), // same step written twice: the last one wins
                row("t", "3,4"), row("t", null), row("t", "1,1,recreated"), // a tombstone forgets the old stamps
                row("u", "2,8"), row("u", "6,-1,takeover"), // a new run: a later dispatch, no report yet
                row("v", "2,8"), row("v", "garbage")));
        assertThat(value("s")).isEqualTo("5,9,b");
        assertThat(value("t")).isEqualTo("1,1,recreated");
        assertThat(value("u")).isEqualTo("6,-1,takeover");
        assertThat(value("v")).isEqualTo("garbage");
    }

    @Test
    void olderMeansBothStampsAtOrBelowAndOneBelow() {
        assertThat(StaleRowRestore.older(new long[] {5, -1}, new long[] {5, 9})).isTrue();
        assertThat(StaleRowRestore.older(new long[] {4, 9}, new long[] {5, 9})).isTrue();
        assertThat(StaleRowRestore.older(new long[] {5, 9}, new long[] {5, 9})).isFalse();
        assertThat(StaleRowRestore.older(new long[] {6, -1}, new long[] {5, 9})).isFalse();
        assertThat(StaleRowRestore.older(new long[] {-1, 10}, new long[] {5, 9})).isFalse();
    }

    private void apply(Collection<ConsumerRecord<byte[], byte[]>> records) {
        for (ConsumerRecord<byte[], byte[]> r : records) {
            Bytes key = Bytes.wrap(r.key());
            if (r.value() == null) {
                store.remove(key);
            } else {
                store.put(key, r.value());
            }
            restored.add(new String(r.key(), UTF_8) + "=" + (r.value() == null ? null : new String(r.value(), UTF_8)));
        }
    }

    private String value(String key) {
        byte[] v = store.get(Bytes.wrap(key.getBytes(UTF_8)));
        return v == null ? null : new String(v, UTF_8);
    }

    private static long offset = 0;

    private static ConsumerRecord<byte[], byte[]> row(String key, String value) {
        return new ConsumerRecord<>("app-sites-changelog", 0, offset++, key.getBytes(UTF_8), value == null ? null : value.getBytes(UTF_8));
    }

    private static long[] stamps(byte[] row) {
        String[] parts = new String(row, UTF_8).split(",");
        try {
            return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])};
        } catch (RuntimeException unreadable) {
            return null;
        }
    }
}
